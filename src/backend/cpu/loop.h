#pragma once
// Note [Loop engine]: every elementwise-style kernel runs through StridedLoop. Operands (outputs
// first) are viewed with the output's shape (inputs broadcast with stride 0), adjacent dims that
// are contiguous in every operand are merged, and the flattened index space is split among
// threads. The kernel sees 1-D runs: inner(ptrs, byte_strides, n). When every stride of a run
// equals its element size (or 0 for a broadcast scalar), typed helpers take the Vec<T> path.
#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <span>
#include <vector>

#include "backend/cpu/parallel.h"
#include "ember/core/small_vector.h"
#include "ember/core/tensor.h"

namespace ember::cpu {

constexpr int kMaxOperands = 6;

struct StridedLoop {
  int ntensors = 0;
  SmallVector<int64_t, 6> shape;                              // iteration dims, innermost last
  SmallVector<std::array<int64_t, kMaxOperands>, 6> strides;  // [dim][tensor], in bytes
  std::array<char*, kMaxOperands> base{};
  int64_t numel = 1;
};

/// The operands of a loop, by reference: a braced list of Tensors would copy each handle (an
/// atomic reference count each way, on every elementwise call).
using Operands = std::initializer_list<std::reference_wrapper<const Tensor>>;

/// Builds a loop over `shape`. Each operand must have `shape` or broadcast to it.
StridedLoop make_loop(std::span<const TensorImpl* const> operands,
                      const std::vector<int64_t>& shape);
StridedLoop make_loop(std::span<const Tensor> operands, const std::vector<int64_t>& shape);
StridedLoop make_loop(Operands operands, const std::vector<int64_t>& shape);
/// Loop over the shape of operands[0] (the output).
inline StridedLoop make_loop(std::span<const Tensor> operands) {
  return make_loop(operands, operands[0].sizes());
}
inline StridedLoop make_loop(Operands operands) {
  return make_loop(operands, operands.begin()->get().sizes());
}

/// Runs inner(ptrs, strides, n) over all elements, in parallel when numel >= grain.
template <typename Inner>
void for_each(const StridedLoop& loop, const Inner& inner, int64_t grain = kGrainSize) {
  if (loop.numel == 0) return;
  const int nd = static_cast<int>(loop.shape.size());
  const int nt = loop.ntensors;
  if (nd == 0) {
    std::array<char*, kMaxOperands> p = loop.base;
    std::array<int64_t, kMaxOperands> s{};
    inner(p.data(), s.data(), int64_t{1});
    return;
  }
  const int64_t inner_size = loop.shape[nd - 1];
  parallel_for(0, loop.numel, grain, [&](int64_t begin, int64_t end) {
    begin = run_boundary(begin, inner_size, loop.numel);
    end = run_boundary(end, inner_size, loop.numel);
    if (begin >= end) return;
    // Unravel `begin` into an odometer over the outer dims.
    std::array<int64_t, 16> idx_small{};
    std::vector<int64_t> idx_big;
    int64_t* idx = nd <= 16 ? idx_small.data() : (idx_big.assign(nd, 0), idx_big.data());
    int64_t rem = begin;
    for (int d = nd - 1; d >= 0; --d) {
      idx[d] = rem % loop.shape[d];
      rem /= loop.shape[d];
    }
    std::array<char*, kMaxOperands> p;
    for (int t = 0; t < nt; ++t) {
      char* q = loop.base[t];
      for (int d = 0; d < nd; ++d) q += idx[d] * loop.strides[d][t];
      p[t] = q;
    }
    int64_t i = begin;
    while (i < end) {
      int64_t n = std::min(inner_size - idx[nd - 1], end - i);
      inner(p.data(), loop.strides[nd - 1].data(), n);
      i += n;
      if (i >= end) break;
      // Advance: the inner dim finished its row; carry into outer dims.
      for (int t = 0; t < nt; ++t) p[t] += n * loop.strides[nd - 1][t];
      idx[nd - 1] += n;
      for (int d = nd - 1; d > 0 && idx[d] == loop.shape[d]; --d) {
        for (int t = 0; t < nt; ++t) {
          p[t] += loop.strides[d - 1][t] - loop.shape[d] * loop.strides[d][t];
        }
        idx[d] = 0;
        ++idx[d - 1];
      }
    }
  });
}

}  // namespace ember::cpu
