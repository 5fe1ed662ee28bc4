#include "ember/core/storage.h"

#include "ember/core/allocator.h"
#include "ember/core/error.h"

namespace ember {

StorageImpl::StorageImpl(size_t nbytes, Device device) : nbytes_(nbytes), device_(device) {
  check_device_available(device, "storage");
  if (device.is_meta()) return;
  allocator_ = get_allocator(device.type());
  EMBER_CHECK_NOT_IMPL(allocator_ != nullptr, "[storage] device '", device.str(),
                       "' has no allocator in this build of Ember");
  data_ = allocator_->allocate(nbytes);
}

StorageImpl::StorageImpl(void* data, size_t nbytes, Deleter deleter)
    : data_(data), nbytes_(nbytes), deleter_(std::move(deleter)) {}

StorageImpl::~StorageImpl() {
  if (allocator_) {
    allocator_->deallocate(data_, nbytes_);
  } else if (deleter_) {
    deleter_(data_);
  }
}

}  // namespace ember
