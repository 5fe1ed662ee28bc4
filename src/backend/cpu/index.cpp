// Advanced indexing kernels (Note [Advanced indexing layout] in src/primitives/index.h).
#include "primitives/index.h"

#include <limits>

#include "backend/cpu/binary_functors.h"
#include "backend/cpu/loop.h"
#include "backend/cpu/view_util.h"

namespace ember {
namespace {

// The element offset each position of the index shape selects: sum_j wrap(idx_j) * stride_j.
// Bounds are checked here, once per index element, with PyTorch's message.
Tensor index_offsets(const Tensor& self, const std::vector<int64_t>& dims,
                     const std::vector<Tensor>& indices, const std::vector<int64_t>& shape,
                     const char* op) {
  Tensor off = cpu::scratch_tensor(shape, kInt64);
  for (size_t j = 0; j < dims.size(); ++j) {
    const int64_t size = self.sizes()[dims[j]], stride = self.strides()[dims[j]];
    const int64_t dim = dims[j];
    const bool first = j == 0;
    auto loop = cpu::make_loop({off, indices[j]}, shape);
    auto run = [&](auto* tag) {
      using I = std::remove_pointer_t<decltype(tag)>;
      cpu::for_each(loop, [&](char** p, const int64_t* s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          int64_t v = *reinterpret_cast<const I*>(p[1] + i * s[1]);
          EMBER_CHECK_INDEX(v >= -size && v < size, "[", op, "] index ", v,
                            " is out of bounds for dimension ", dim, " with size ", size);
          if (v < 0) v += size;
          int64_t& o = *reinterpret_cast<int64_t*>(p[0] + i * s[0]);
          o = (first ? 0 : o) + v * stride;
        }
      });
    };
    if (indices[j].dtype() == kInt32) {
      run(static_cast<int32_t*>(nullptr));
    } else {
      EMBER_INTERNAL_ASSERT(indices[j].dtype() == kInt64, "index dtype");
      run(static_cast<int64_t*>(nullptr));
    }
  }
  return off;
}

}  // namespace

void Index::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& self = inputs[0];
  std::vector<Tensor> indices(inputs.begin() + 1, inputs.end());
  Tensor& out = outputs[0];
  auto g = advanced_index_geometry(self, p_.dims, indices, "index");
  EMBER_INTERNAL_ASSERT(out.sizes() == g.result_sizes, "index output shape");
  if (out.numel() == 0) return;
  Tensor off = index_offsets(self, p_.dims, indices, g.index_shape, "index");
  Tensor src = cpu::strided_view(self, g.result_sizes, g.self_strides, self.storage_offset());
  Tensor off_r = cpu::strided_view(off, g.result_sizes, g.index_strides, 0);
  auto loop = cpu::make_loop({out, src, off_r});
  cpu::visit_element_size(self.element_size(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    cpu::for_each(loop, [&](char** p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t o = *reinterpret_cast<const int64_t*>(p[2] + i * s[2]);
        *reinterpret_cast<T*>(p[0] + i * s[0]) =
            *reinterpret_cast<const T*>(p[1] + i * s[1] + o * static_cast<int64_t>(sizeof(T)));
      }
    });
  });
}

void IndexPut::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  if (!inplace()) cpu::copy_into(inputs[0], outputs[0]);  // the out-of-place form
  const Tensor& value = inputs[1];
  std::vector<Tensor> indices(inputs.begin() + 2, inputs.end());
  Tensor& self = outputs[0];
  EMBER_INTERNAL_ASSERT(value.dtype() == self.dtype(), "index_put_ value dtype");
  auto g = advanced_index_geometry(self, p_.dims, indices, "index_put_");
  int64_t numel = 1;
  for (auto s : g.result_sizes) numel *= s;
  if (numel == 0) return;
  Tensor off = index_offsets(self, p_.dims, indices, g.index_shape, "index_put_");
  Tensor dst = cpu::strided_view(self, g.result_sizes, g.self_strides, self.storage_offset());
  Tensor off_r = cpu::strided_view(off, g.result_sizes, g.index_strides, 0);
  auto loop = cpu::make_loop({dst, value, off_r}, g.result_sizes);
  // Serial, so that with repeated indices the last write (in row-major order) wins, or every
  // value is added (accumulate).
  auto run = [&](auto write) {
    cpu::for_each(
        loop,
        [&](char** p, const int64_t* s, int64_t n) {
          for (int64_t i = 0; i < n; ++i) {
            const int64_t o = *reinterpret_cast<const int64_t*>(p[2] + i * s[2]);
            write(p[0] + i * s[0], o, p[1] + i * s[1]);
          }
        },
        std::numeric_limits<int64_t>::max());
  };
  if (!p_.accumulate) {
    cpu::visit_element_size(self.element_size(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      run([](char* dst, int64_t o, const char* src) {
        reinterpret_cast<T*>(dst)[o] = *reinterpret_cast<const T*>(src);
      });
    });
    return;
  }
  visit_dtype(self.dtype(), "index_put_", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    run([](char* dst, int64_t o, const char* src) {
      T& d = reinterpret_cast<T*>(dst)[o];
      if constexpr (std::is_same_v<T, bool>) {
        d = d || *reinterpret_cast<const bool*>(src);
      } else if constexpr (std::is_integral_v<T>) {
        d = cpu::bin::wrap_add(d,
                               *reinterpret_cast<const T*>(src));  // wraps, as PyTorch's integers
      } else {
        d = static_cast<T>(d + *reinterpret_cast<const T*>(src));
      }
    });
  });
}

void Nonzero::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs[0];
  EMBER_INTERNAL_ASSERT(x.element_size() == 1, "nonzero expects a bool or uint8 mask");
  const int64_t nd = x.dim(), numel = x.numel();
  const char* base = static_cast<const char*>(x.data_ptr());
  const auto& sz = x.sizes();
  const auto& st = x.strides();
  // Two passes over the mask in row-major order: count, then write coordinates.
  auto walk = [&](auto&& visit) {
    std::vector<int64_t> idx(nd, 0);
    int64_t off = 0;
    for (int64_t i = 0; i < numel; ++i) {
      if (base[off] != 0) visit(idx);
      for (int64_t d = nd - 1; d >= 0; --d) {
        off += st[d];
        if (++idx[d] < sz[d]) break;
        off -= st[d] * sz[d];
        idx[d] = 0;
      }
    }
  };
  int64_t count = 0;
  walk([&](const std::vector<int64_t>&) { ++count; });
  Tensor out = cpu::scratch_tensor({count, nd}, kInt64);
  int64_t* o = static_cast<int64_t*>(out.data_ptr());
  walk([&](const std::vector<int64_t>& idx) {
    for (int64_t d = 0; d < nd; ++d) *o++ = idx[d];
  });
  outputs.push_back(out);
}

}  // namespace ember
