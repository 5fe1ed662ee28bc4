// Padding kernels: each padded dim gets a table mapping an output position to the input position
// it reads (-1: the constant value). The forward gathers through the tables; the backward adds
// every output element into the position it was read from.
#include <sstream>

#include "backend/cpu/compute.h"
#include "backend/cpu/parallel.h"
#include "primitives/pool.h"

namespace ember {

namespace cpu {
namespace {

std::vector<int64_t> source_table(PadMode mode, int64_t in, int64_t left, int64_t out) {
  std::vector<int64_t> t(out);
  for (int64_t j = 0; j < out; ++j) {
    int64_t s = j - left;
    switch (mode) {
      case PadMode::Constant:
        if (s < 0 || s >= in) s = -1;
        break;
      case PadMode::Reflect:
        if (s < 0) s = -s;
        if (s >= in) s = 2 * (in - 1) - s;
        break;
      case PadMode::Replicate:
        s = std::min(std::max<int64_t>(s, 0), in - 1);
        break;
      case PadMode::Circular:
        s = ((s % in) + in) % in;
        break;
    }
    t[j] = s;
  }
  return t;
}

// The padded tensor seen as [outer, o_1, ..., o_m] over input [outer, i_1, ..., i_m].
struct PadGeom {
  int64_t outer = 1, in_block = 1, out_block = 1;
  std::vector<int64_t> in_sizes, out_sizes;  // padded dims only
  std::vector<std::vector<int64_t>> tables;  // per padded dim
};

PadGeom pad_geom(const Tensor& x, const Tensor& y, PadMode mode, const std::vector<int64_t>& pad) {
  PadGeom g;
  const int64_t nd = x.dim(), m = static_cast<int64_t>(pad.size()) / 2;
  for (int64_t d = 0; d < nd - m; ++d) g.outer *= x.size(d);
  for (int64_t d = nd - m; d < nd; ++d) {
    const int64_t k = nd - 1 - d;  // pairs are listed from the last dim
    g.in_sizes.push_back(x.size(d));
    g.out_sizes.push_back(y.size(d));
    g.tables.push_back(source_table(mode, x.size(d), pad[2 * k], y.size(d)));
    g.in_block *= x.size(d);
    g.out_block *= y.size(d);
  }
  return g;
}

// Calls f(out_offset, in_offset or -1) for every element of one outer block.
template <typename F>
void for_each_padded(const PadGeom& g, const F& f) {
  const size_t m = g.out_sizes.size();
  if (m == 0) {
    f(int64_t{0}, int64_t{0});
    return;
  }
  std::vector<int64_t> in_strides(m, 1);
  for (size_t d = m - 1; d > 0; --d) in_strides[d - 1] = in_strides[d] * g.in_sizes[d];
  std::vector<int64_t> pos(m, 0);
  const int64_t last = g.out_sizes[m - 1];
  const auto& tl = g.tables[m - 1];
  for (int64_t row = 0; row < g.out_block / std::max<int64_t>(last, 1); ++row) {
    int64_t base = 0;
    bool valid = true;
    for (size_t d = 0; d + 1 < m; ++d) {
      const int64_t s = g.tables[d][pos[d]];
      if (s < 0) valid = false;
      base += s * in_strides[d];
    }
    for (int64_t j = 0; j < last; ++j) {
      f(row * last + j, valid && tl[j] >= 0 ? base + tl[j] : int64_t{-1});
    }
    for (size_t d = m - 1; d-- > 0;) {  // odometer over the outer padded dims
      if (++pos[d] < g.out_sizes[d]) break;
      pos[d] = 0;
    }
  }
}

}  // namespace
}  // namespace cpu

void Pad::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& in = inputs[0];
  Tensor& out = outputs[0];
  const Tensor& x = p_.backward ? out : in;
  const Tensor& y = p_.backward ? in : out;
  if (out.numel() == 0) return;
  const cpu::PadGeom g = cpu::pad_geom(x, y, p_.mode, p_.pad);
  const int64_t grain = std::max<int64_t>(1, cpu::kGrainSize / std::max<int64_t>(1, g.out_block));
  if (!p_.backward) {
    visit_dtype(out.dtype(), name(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      const T* xp = in.data_ptr<T>();
      T* yp = out.data_ptr<T>();
      const T fill = Scalar(p_.value).to<T>();
      cpu::parallel_for(0, g.outer, grain, [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o) {
          const T* xs = xp + o * g.in_block;
          T* ys = yp + o * g.out_block;
          cpu::for_each_padded(g, [&](int64_t yo, int64_t xi) { ys[yo] = xi < 0 ? fill : xs[xi]; });
        }
      });
    });
    return;
  }
  cpu::visit_floating(out.dtype(), name(), name(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    using C = cpu::compute_t<T>;
    const T* gyp = in.data_ptr<T>();
    T* gxp = out.data_ptr<T>();
    cpu::parallel_for(0, g.outer, grain, [&](int64_t b, int64_t e) {
      std::vector<C> acc(g.in_block);
      for (int64_t o = b; o < e; ++o) {
        std::fill(acc.begin(), acc.end(), C(0));
        const T* gys = gyp + o * g.out_block;
        cpu::for_each_padded(g, [&](int64_t yo, int64_t xi) {
          if (xi >= 0) acc[xi] += static_cast<C>(gys[yo]);
        });
        cpu::store_rounded(acc.data(), g.in_block, gxp + o * g.in_block);
      }
    });
  });
}

}  // namespace ember
