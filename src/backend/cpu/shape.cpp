// Kernels of the shape ops that move data (src/primitives/shape.h). Most build strided views of
// their operands and run the Copy kernel, which handles any layout and dtype conversion.
#include "primitives/shape.h"

#include <algorithm>

#include "backend/cpu/loop.h"
#include "backend/cpu/view_util.h"
#include "primitives/copy.h"

namespace ember {

using cpu::copy_into;

void Cat::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& out = outputs[0];
  const int64_t stride = out.strides()[p_.dim];
  int64_t pos = 0;
  for (const Tensor& in : inputs) {
    copy_into(
        in, cpu::strided_view(out, in.sizes(), out.strides(), out.storage_offset() + pos * stride));
    pos += in.sizes()[p_.dim];
  }
}

void Flip::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs[0];
  if (x.numel() == 0) return;
  // Reading through negated strides, starting at the last element of each flipped dim.
  auto strides = x.strides();
  int64_t offset = x.storage_offset();
  for (int64_t d : p_.dims) {
    offset += (x.sizes()[d] - 1) * strides[d];
    strides[d] = -strides[d];
  }
  copy_into(cpu::strided_view(x, x.sizes(), strides, offset), outputs[0]);
}

void Roll::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs[0];
  const Tensor& out = outputs[0];
  if (x.numel() == 0) return;
  // Each rolled dim splits into two blocks: out[:s] = x[n-s:] and out[s:] = x[:n-s]. With k
  // rolled dims that makes 2^k block copies (k <= log2(numel), as every rolled dim has size > 1).
  const size_t k = p_.dims.size();
  for (uint64_t mask = 0; mask < (uint64_t{1} << k); ++mask) {
    auto sizes = x.sizes();
    int64_t in_off = x.storage_offset(), out_off = out.storage_offset();
    bool empty = false;
    for (size_t j = 0; j < k; ++j) {
      const int64_t d = p_.dims[j], n = x.sizes()[d], s = p_.shifts[j];
      if (mask & (uint64_t{1} << j)) {  // the leading block of the output
        sizes[d] = s;
        in_off += (n - s) * x.strides()[d];
      } else {
        sizes[d] = n - s;
        out_off += s * out.strides()[d];
      }
      empty = empty || sizes[d] == 0;
    }
    if (empty) continue;
    copy_into(cpu::strided_view(x, sizes, x.strides(), in_off),
              cpu::strided_view(out, sizes, out.strides(), out_off));
  }
}

void Repeat::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs[0];
  const Tensor& out = outputs[0];
  if (out.numel() == 0) return;
  // View the output as [r0, s0, r1, s1, ...] and copy the input broadcast over the r dims.
  const int64_t m = static_cast<int64_t>(p_.repeats.size()), pad = m - x.dim();
  std::vector<int64_t> sizes, out_strides, in_strides;
  for (int64_t i = 0; i < m; ++i) {
    const int64_t s = i < pad ? 1 : x.sizes()[i - pad];
    const int64_t xs = i < pad ? 0 : x.strides()[i - pad];
    sizes.insert(sizes.end(), {p_.repeats[i], s});
    out_strides.insert(out_strides.end(), {s * out.strides()[i], out.strides()[i]});
    in_strides.insert(in_strides.end(), {0, xs});
  }
  copy_into(cpu::strided_view(x, sizes, in_strides, x.storage_offset()),
            cpu::strided_view(out, sizes, out_strides, out.storage_offset()));
}

void Triangle::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs[0];
  const Tensor& out = outputs[0];
  const int64_t nd = x.dim(), m = x.sizes()[nd - 2], n = x.sizes()[nd - 1];
  if (x.numel() == 0) return;
  const int64_t k = std::clamp<int64_t>(p_.diagonal, -(m + n), m + n);
  const int64_t rows = x.numel() / n;
  const bool lower = p_.lower;
  const int64_t xes = x.element_size();
  cpu::visit_element_size(xes, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const char* xb = static_cast<const char*>(x.data_ptr());
    char* ob = static_cast<char*>(out.data_ptr());
    const int64_t grain = std::max<int64_t>(1, cpu::kGrainSize / std::max<int64_t>(n, 1));
    cpu::parallel_for(0, rows, grain, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        // Unravel the row index over the batch dims and the row dim.
        int64_t rem = r, xo = 0, oo = 0;
        for (int64_t d = nd - 2; d >= 0; --d) {
          const int64_t i = rem % x.sizes()[d];
          rem /= x.sizes()[d];
          xo += i * x.strides()[d];
          oo += i * out.strides()[d];
        }
        const int64_t i = r % m;
        // Kept columns: tril j <= i + k; triu j >= i + k.
        const int64_t lo = lower ? 0 : std::clamp<int64_t>(i + k, 0, n);
        const int64_t hi = lower ? std::clamp<int64_t>(i + k + 1, 0, n) : n;
        const int64_t xs = x.strides()[nd - 1], os = out.strides()[nd - 1];
        for (int64_t j = 0; j < n; ++j) {
          T v = (j >= lo && j < hi) ? *reinterpret_cast<const T*>(xb + (xo + j * xs) * xes) : T(0);
          *reinterpret_cast<T*>(ob + (oo + j * os) * xes) = v;
        }
      }
    });
  });
}

}  // namespace ember
