#include "ember/core/device.h"

#include <cctype>

#include "ember/core/error.h"

namespace ember {

// Only an index below -1, or a CPU index other than -1 and 0, gets here.
void Device::bad_index(int index) {
  EMBER_CHECK_VALUE(index >= -1, "[device] device index must be -1 or non-negative, got ", index);
  EMBER_THROW(ValueError, "[device] CPU device index must be -1 or zero, got ", index);
}

Device::Device(const std::string& spec) {
  std::string kind = spec, idx;
  auto colon = spec.find(':');
  if (colon != std::string::npos) {
    kind = spec.substr(0, colon);
    idx = spec.substr(colon + 1);
  }
  if (kind == "cpu") {
    type_ = kCPU;
  } else if (kind == "cuda") {
    type_ = kCUDA;
  } else if (kind == "meta") {
    type_ = kMeta;
  } else {
    EMBER_THROW(RuntimeError,
                "[device] Expected one of cpu, cuda, meta device type at start of "
                "device string: ",
                spec);
  }
  index_ = -1;
  if (colon != std::string::npos) {
    bool ok = !idx.empty() && idx.size() < 9;
    for (char c : idx) ok = ok && std::isdigit(static_cast<unsigned char>(c));
    EMBER_CHECK(ok, "[device] Invalid device string: '", spec, "'");
    index_ = std::stoi(idx);
    EMBER_CHECK(type_ != kCPU || index_ == 0, "[device] CPU device index must be -1 or zero, got ",
                index_);
  }
}

std::string Device::str() const {
  std::string s = type_ == kCPU ? "cpu" : type_ == kCUDA ? "cuda" : "meta";
  if (index_ >= 0) {
    s += ':';  // two appends: GCC 12 warns (-Wrestrict, a false positive) on ":" + std::string
    s += std::to_string(index_);
  }
  return s;
}

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

void check_device_available(const Device& d, const char* op) {
  EMBER_CHECK_NOT_IMPL(!d.is_cuda(), "[", op, "] device '", d.str(),
                       "' is not available: this build of Ember has no CUDA backend");
}

}  // namespace ember
