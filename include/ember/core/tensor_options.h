#pragma once
#include <optional>

#include "ember/core/device.h"
#include "ember/core/dtype.h"

namespace ember {

/// libtorch's TensorOptions builder: ember::TensorOptions().dtype(kFloat64).requires_grad(true).
class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType d) : dtype_(d) {}  // NOLINT: ember::zeros({2}, kInt64)
  TensorOptions(Device d) : device_(d) {}     // NOLINT
  TensorOptions(DeviceType t) : device_(Device(t)) {}  // NOLINT: ember::empty({2}, kMeta)
  TensorOptions dtype(ScalarType d) const { auto o = *this; o.dtype_ = d; return o; }
  TensorOptions device(Device d) const { auto o = *this; o.device_ = d; return o; }
  TensorOptions requires_grad(bool r) const { auto o = *this; o.requires_grad_ = r; return o; }

  bool has_dtype() const { return dtype_.has_value(); }
  /// The dtype, or the default float dtype when none was given.
  ScalarType dtype() const { return dtype_.value_or(get_default_dtype()); }
  const std::optional<ScalarType>& dtype_opt() const { return dtype_; }
  bool has_device() const { return device_.has_value(); }
  /// The device, or the CPU when none was given.
  Device device() const { return device_.value_or(Device(kCPU)); }
  bool requires_grad() const { return requires_grad_; }

 private:
  std::optional<ScalarType> dtype_;
  std::optional<Device> device_;
  bool requires_grad_ = false;
};

inline TensorOptions dtype(ScalarType d) { return TensorOptions().dtype(d); }
inline TensorOptions device(Device d) { return TensorOptions().device(d); }
inline TensorOptions requires_grad(bool r = true) { return TensorOptions().requires_grad(r); }

}  // namespace ember
