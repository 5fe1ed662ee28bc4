#include "ember/core/storage.h"

#include "ember/core/allocator.h"

namespace ember {

StorageImpl::StorageImpl(size_t nbytes)
    : data_(detail::cpu_alloc(nbytes)), nbytes_(nbytes), owned_(true) {}

StorageImpl::StorageImpl(void* data, size_t nbytes, Deleter deleter)
    : data_(data), nbytes_(nbytes), owned_(false), deleter_(std::move(deleter)) {}

StorageImpl::~StorageImpl() {
  if (owned_) {
    detail::cpu_free(data_);
  } else if (deleter_) {
    deleter_(data_);
  }
}

}  // namespace ember
