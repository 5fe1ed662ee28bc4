#include "ember/core/storage.h"

#include "ember/core/allocator.h"

namespace ember {

StorageImpl::StorageImpl(size_t nbytes, Device device)
    : data_(device.is_meta() ? nullptr : detail::cpu_alloc(nbytes)),
      nbytes_(nbytes),
      owned_(!device.is_meta()),
      device_(device) {
  check_device_available(device, "storage");
}

StorageImpl::StorageImpl(void* data, size_t nbytes, Deleter deleter)
    : data_(data), nbytes_(nbytes), owned_(false), deleter_(std::move(deleter)) {}

StorageImpl::~StorageImpl() {
  if (owned_) {
    detail::cpu_free(data_, nbytes_);
  } else if (deleter_) {
    deleter_(data_);
  }
}

}  // namespace ember
