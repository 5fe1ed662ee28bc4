#pragma once
// Small helpers for the shape and index kernels: strided views made inside a kernel (they share
// the operand's storage and never reach user code) and dispatch on element size, for kernels
// that only move bytes.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "ember/core/tensor.h"
#include "primitives/copy.h"

namespace ember::cpu {

/// A tensor over `base`'s storage with the given geometry (in elements of `base`'s dtype).
inline Tensor strided_view(const Tensor& base, std::vector<int64_t> sizes,
                           std::vector<int64_t> strides, int64_t offset) {
  return Tensor(std::make_shared<TensorImpl>(base.impl()->storage(), base.dtype(), std::move(sizes),
                                             std::move(strides), offset));
}

/// A new contiguous tensor owned by the kernel (scratch space).
inline Tensor scratch_tensor(const std::vector<int64_t>& sizes, ScalarType dtype,
                             const char* op = "scratch") {
  std::vector<int64_t> strides = contiguous_strides(sizes);
  auto storage = std::make_shared<StorageImpl>(strided_nbytes(sizes, strides, dtype, op));
  return Tensor(
      std::make_shared<TensorImpl>(std::move(storage), dtype, sizes, std::move(strides), 0));
}

/// dst = src (any layouts and dtypes; src broadcasts to dst), by the Copy kernel.
inline void copy_into(const Tensor& src, const Tensor& dst) {
  if (dst.numel() == 0) return;
  std::vector<Tensor> out{dst};
  Copy().eval_cpu({src}, out);
}

/// Calls f with a null pointer to an unsigned integer type of `bytes` bytes (1, 2, 4 or 8).
template <typename F>
void visit_element_size(int64_t bytes, F&& f) {
  switch (bytes) {
    case 1:
      f(static_cast<uint8_t*>(nullptr));
      return;
    case 2:
      f(static_cast<uint16_t*>(nullptr));
      return;
    case 4:
      f(static_cast<uint32_t*>(nullptr));
      return;
    case 8:
      f(static_cast<uint64_t*>(nullptr));
      return;
    default:
      break;
  }
  EMBER_INTERNAL_ASSERT(false, "unsupported element size ", bytes);
}

}  // namespace ember::cpu
