#include "backend/cpu/reduce_engine.h"

#include "backend/cpu/reduce_kernels.h"
#include "primitives/reduction.h"

namespace ember::cpu::inline EMBER_CPU_CAPABILITY {

namespace {

// Appends a dim to (sizes, strides...), merging it into the previous one when every stride set
// is contiguous across the two. Size-1 dims are skipped.
void push_dim(std::vector<int64_t>& sizes, std::vector<std::vector<int64_t>*> strides, int64_t size,
              const std::vector<int64_t>& s) {
  if (size == 1) return;
  if (!sizes.empty()) {
    bool merge = true;
    for (size_t k = 0; k < strides.size(); ++k) merge = merge && strides[k]->back() == s[k] * size;
    if (merge) {
      sizes.back() *= size;
      for (size_t k = 0; k < strides.size(); ++k) strides[k]->back() = s[k];
      return;
    }
  }
  sizes.push_back(size);
  for (size_t k = 0; k < strides.size(); ++k) strides[k]->push_back(s[k]);
}

}  // namespace

ReduceGeom make_reduce_geom(const Tensor& x, const std::vector<bool>& reduce) {
  ReduceGeom g;
  g.base = static_cast<char*>(x.data_ptr());
  g.elem = x.element_size();
  const bool empty = x.numel() == 0;
  for (int64_t d = 0; d < x.dim(); ++d) {
    // A stride that is never stepped (a dim of size 1, or any dim of an empty tensor) may be
    // huge (an as_strided view), and is not scaled to bytes.
    const int64_t size = x.sizes()[d];
    const int64_t stride = empty || size <= 1 ? 0 : x.strides()[d] * g.elem;
    if (reduce[d]) {
      g.red_numel *= size;
      push_dim(g.red_sizes, {&g.red_strides}, size, {stride});
    } else {
      g.num_out *= size;
      push_dim(g.out_sizes, {&g.out_strides}, size, {stride});
    }
  }
  if (g.red_sizes.empty()) {
    g.red_sizes.push_back(1);
    g.red_strides.push_back(0);
  }
  return g;
}

ScanGeom make_scan_geom(const Tensor& x, int64_t dim) {
  ScanGeom g;
  g.base = static_cast<char*>(x.data_ptr());
  g.elem = x.element_size();
  const auto out_strides = contiguous_strides(x.sizes());
  for (int64_t d = 0; d < x.dim(); ++d) {
    const int64_t size = x.sizes()[d], in_s = x.strides()[d] * g.elem;
    if (d == dim) {
      g.len = size;
      g.in_stride = in_s;
      g.out_stride = out_strides[d];
    } else {
      g.lines *= size;
      push_dim(g.sizes, {&g.in_strides, &g.out_strides}, size, {in_s, out_strides[d]});
    }
  }
  return g;
}

}  // namespace ember::cpu::inline EMBER_CPU_CAPABILITY

namespace ember {

EMBER_CPU_KERNEL(Reduce, inputs, outputs) {
  const Tensor& x = inputs.at(0);
  std::vector<bool> mask(x.dim(), false);
  for (int64_t d : p_.dims) {
    EMBER_INTERNAL_ASSERT(d >= 0 && (d < x.dim() || (x.dim() == 0 && d == 0)), "reduce dim");
    if (d < x.dim()) mask[d] = true;
  }
  auto g = cpu::make_reduce_geom(x, mask);
  for (const Tensor& out : outputs) {
    EMBER_INTERNAL_ASSERT(out.is_contiguous() && out.numel() == g.num_out, "reduce output");
  }
  switch (p_.op) {
    case ReduceOp::Sum:
    case ReduceOp::NanSum:
    case ReduceOp::Mean:
    case ReduceOp::NanMean:
    case ReduceOp::Prod:
      return cpu::reduce_sum_family(p_.op, g, x, outputs);
    case ReduceOp::AMax:
    case ReduceOp::AMin:
    case ReduceOp::MaxDim:
    case ReduceOp::MinDim:
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
    case ReduceOp::AMinMax:
      return cpu::reduce_minmax_family(p_.op, g, x, outputs);
    case ReduceOp::Var:
    case ReduceOp::Std:
    case ReduceOp::VarMean:
    case ReduceOp::StdMean:
    case ReduceOp::Norm:
    case ReduceOp::LogSumExp:
      return cpu::reduce_stats_family(p_.op, g, x, outputs, p_.param);
    case ReduceOp::All:
    case ReduceOp::Any:
    case ReduceOp::CountNonzero:
      return cpu::reduce_logical_family(p_.op, g, x, outputs);
  }
}

EMBER_CPU_KERNEL(Scan, inputs, outputs) {
  const Tensor& x = inputs.at(0);
  EMBER_INTERNAL_ASSERT(p_.dim >= 0 && (p_.dim < x.dim() || (x.dim() == 0 && p_.dim == 0)),
                        "scan dim");
  for (const Tensor& out : outputs) {
    EMBER_INTERNAL_ASSERT(out.is_contiguous() && out.sizes() == x.sizes(), "scan output");
  }
  cpu::scan_family(p_.op, cpu::make_scan_geom(x, p_.dim), x, outputs);
}

}  // namespace ember
