// What every backend shares: the allgathered records beyond record_capacity().
#include "distributed/backend.h"

namespace ember::distributed::detail {

char* Backend::record_out(size_t bytes) {
  if (bytes <= record_capacity_) return record_out_.data();
  if (gathered_out_.size() < bytes) gathered_out_.resize(bytes);
  return gathered_out_.data();
}

const std::vector<const char*>& Backend::exchange(const char* api, size_t bytes) {
  (void)api;
  const char* mine = record_out(bytes);
  const size_t n = records_.size();
  if (n == 1) {
    records_[0] = mine;
    return records_;
  }
  gathered_.resize(n * bytes);
  allgather(mine, gathered_.data(), bytes);
  for (size_t r = 0; r < n; ++r) records_[r] = gathered_.data() + r * bytes;
  return records_;
}

}  // namespace ember::distributed::detail
