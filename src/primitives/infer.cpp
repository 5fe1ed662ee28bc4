// Shape inference (Note [Inference]) of the elementwise, reduction, softmax, matmul, copy,
// factory (range, random) and copying shape families: each primitive's outputs from its inputs'
// metadata, on SymInts. The op builders have validated the arguments; these rules only compute.
#include <algorithm>
#include <limits>

#include "primitives/binary.h"
#include "primitives/copy.h"
#include "primitives/factory.h"
#include "primitives/infer_util.h"
#include "primitives/matmul.h"
#include "primitives/random.h"
#include "primitives/reduction.h"
#include "primitives/shape.h"
#include "primitives/ternary.h"
#include "primitives/unary.h"

namespace ember {

namespace {

// Row-major strides for m.sizes, and m's dtype and device: every contiguous result is finished
// this way, in place (an op's metadata is built where it ends up, not moved about: the tiny op's
// path).
void set_contiguous(TensorMeta& m, ScalarType dtype, Device device) {
  m.dtype = dtype;
  m.device = device;
  const SymShape& sizes = m.sizes;
  SymShape& strides = m.strides;
  strides.clear();
  constexpr size_t kFast = 8;
  if (sizes.size() <= kFast &&
      std::none_of(sizes.begin(), sizes.end(), [](const SymInt& s) { return s.is_symbolic(); })) {
    // Concrete sizes (every eager op): the same rule on plain integers.
    int64_t st[kFast];
    int64_t running = 1;
    for (size_t i = sizes.size(); i-- > 0;) {
      st[i] = running;
      if (__builtin_mul_overflow(running, std::max<int64_t>(sizes[i].hint(), 1), &running)) {
        running = std::numeric_limits<int64_t>::max();
      }
    }
    strides.append(st, st + sizes.size());
    return;
  }
  strides.assign(sizes.size(), SymInt(0));
  SymInt running = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = running;
    // A size-0 or size-1 dim does not scale the strides of the dims before it (as PyTorch).
    const SymInt s = sym_max(sizes[i], 1);
    int64_t product = 0;
    if (running.is_symbolic() || s.is_symbolic()) {
      running = running * s;
    } else if (__builtin_mul_overflow(running.hint(), s.hint(), &product)) {
      // Only an empty tensor's other sizes multiply past int64; its strides are never stepped.
      running = std::numeric_limits<int64_t>::max();
    } else {
      running = product;
    }
  }
}

// broadcast_sizes into `out` (emptied first).
void broadcast_into(std::span<const TensorMeta> in, SymShape& out) {
  size_t rank = 0;
  for (const TensorMeta& m : in) rank = std::max(rank, m.sizes.size());
  out.assign(rank, SymInt(1));
  for (const TensorMeta& m : in) {
    const size_t lead = rank - m.sizes.size();
    for (size_t i = 0; i < m.sizes.size(); ++i) {
      SymInt& o = out[lead + i];
      if (auto settled = broadcast_settled(o, m.sizes[i])) {
        o = std::move(*settled);
      } else if (o == 1) {
        o = m.sizes[i];
      }
    }
  }
}

}  // namespace

TensorMeta TensorMeta::contiguous(SymShape sizes, ScalarType dtype, Device device) {
  TensorMeta m;
  m.sizes = std::move(sizes);
  set_contiguous(m, dtype, device);
  return m;
}

SymShape broadcast_sizes(std::span<const TensorMeta> in) {
  SymShape out;
  broadcast_into(in, out);
  return out;
}

namespace {

// An elementwise result: the broadcast shape, contiguous, on the first input's device (built in
// place: the tiny op's path).
MetaList elementwise(std::span<const TensorMeta> in, ScalarType dtype) {
  MetaList out;
  TensorMeta& m = out.emplace_back();
  broadcast_into(in, m.sizes);
  set_contiguous(m, dtype, in[0].device);
  return out;
}

MetaList same_shape(const TensorMeta& x, std::initializer_list<ScalarType> dtypes) {
  MetaList out;
  for (ScalarType t : dtypes) {
    TensorMeta& m = out.emplace_back();
    m.sizes = x.sizes;
    set_contiguous(m, t, x.device);
  }
  return out;
}

bool is_predicate(UnaryOp op) {
  return op == UnaryOp::IsNan || op == UnaryOp::IsInf || op == UnaryOp::IsFinite ||
         op == UnaryOp::LogicalNot;
}

}  // namespace

MetaList Unary::infer(std::span<const TensorMeta> in) const {
  return same_shape(in[0], {is_predicate(p_.op) ? kBool : in[0].dtype});
}

MetaList Binary::infer(std::span<const TensorMeta> in) const {
  return elementwise(in, binary_op_returns_bool(p_.op) ? kBool : in[0].dtype);
}

MetaList Where::infer(std::span<const TensorMeta> in) const {
  return {TensorMeta::contiguous(broadcast_sizes(in), in[1].dtype, in[1].device)};
}

MetaList Clamp::infer(std::span<const TensorMeta> in) const { return elementwise(in, in[0].dtype); }

MetaList Lerp::infer(std::span<const TensorMeta> in) const { return elementwise(in, in[0].dtype); }

MetaList Addc::infer(std::span<const TensorMeta> in) const { return elementwise(in, in[0].dtype); }

MetaList MaskedFill::infer(std::span<const TensorMeta> in) const {
  return elementwise(in, in[0].dtype);
}

MetaList IsClose::infer(std::span<const TensorMeta> in) const { return elementwise(in, kBool); }

MetaList Reduce::infer(std::span<const TensorMeta> in) const {
  const auto& x = in[0].sizes;
  std::vector<bool> reduced(x.size(), false);
  for (int64_t d : p_.dims) {
    check_dim_param(d, x.size(), name());
    if (d < static_cast<int64_t>(x.size())) reduced[d] = true;
  }
  SymShape shape;
  for (size_t d = 0; d < x.size(); ++d) {
    if (!reduced[d]) {
      shape.push_back(x[d]);
    } else if (p_.keepdim) {
      shape.push_back(1);
    }
  }
  MetaList out;
  out.push_back(TensorMeta::contiguous(shape, p_.dtype, in[0].device));
  switch (p_.op) {
    case ReduceOp::MaxDim:
    case ReduceOp::MinDim:
      out.push_back(TensorMeta::contiguous(shape, kInt64, in[0].device));
      break;
    case ReduceOp::VarMean:
    case ReduceOp::StdMean:
    case ReduceOp::AMinMax:
      out.push_back(out[0]);
      break;
    case ReduceOp::Sum:
    case ReduceOp::NanSum:
    case ReduceOp::Mean:
    case ReduceOp::NanMean:
    case ReduceOp::Prod:
    case ReduceOp::AMax:
    case ReduceOp::AMin:
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
    case ReduceOp::Var:
    case ReduceOp::Std:
    case ReduceOp::Norm:
    case ReduceOp::LogSumExp:
    case ReduceOp::All:
    case ReduceOp::Any:
    case ReduceOp::CountNonzero:
      break;
  }
  return out;
}

MetaList Scan::infer(std::span<const TensorMeta> in) const {
  check_dim_param(p_.dim, in[0].sizes.size(), name());
  const bool indices = p_.op == ScanOp::CumMax || p_.op == ScanOp::CumMin;
  return indices ? same_shape(in[0], {p_.dtype, kInt64}) : same_shape(in[0], {p_.dtype});
}

MetaList Matmul::infer(std::span<const TensorMeta> in) const {
  // [B, m, k] @ [B, k, n] -> [B, m, n]
  return {TensorMeta::contiguous({in[0].sizes[0], in[0].sizes[1], in[1].sizes[2]}, in[0].dtype,
                                 in[0].device)};
}

MetaList Flip::infer(std::span<const TensorMeta> in) const {
  for (int64_t d : p_.dims) check_dim_param(d, in[0].sizes.size(), name());
  return same_shape(in[0], {in[0].dtype});
}

MetaList Roll::infer(std::span<const TensorMeta> in) const {
  for (int64_t d : p_.dims) check_dim_param(d, in[0].sizes.size(), name());
  return same_shape(in[0], {in[0].dtype});
}

MetaList Triangle::infer(std::span<const TensorMeta> in) const {
  return same_shape(in[0], {in[0].dtype});
}

MetaList Repeat::infer(std::span<const TensorMeta> in) const {
  const auto& x = in[0].sizes;
  const size_t pad = p_.repeats.size() - x.size();
  SymShape shape;
  for (size_t i = 0; i < p_.repeats.size(); ++i) {
    shape.push_back((i < pad ? SymInt(1) : x[i - pad]) * p_.repeats[i]);
  }
  return {TensorMeta::contiguous(std::move(shape), in[0].dtype, in[0].device)};
}

MetaList Copy::infer(std::span<const TensorMeta> in) const {
  return same_shape(in[0], {p_.dtype.value_or(in[0].dtype)});
}

// Factories have no input to take a device from, and Device is not yet a parameter type
// (dispatch/params.h): their outputs are on the CPU.
namespace {
// A factory's output: contiguous, of the sizes, dtype and device its parameters state.
MetaList factory_output(const std::vector<SymInt>& sizes, ScalarType dtype, DeviceType device) {
  return {TensorMeta::contiguous(SymShape(sizes.begin(), sizes.end()), dtype, device)};
}
}  // namespace

MetaList Range::infer(std::span<const TensorMeta>) const {
  return factory_output(p_.sizes, p_.dtype, p_.device);
}

Fill Fill::into(const Tensor& target, const Scalar& value) {
  Fill f(value, target.sym_sizes(), target.dtype(), target.device().type());
  f.set_inplace();
  return f;
}

MetaList Fill::infer(std::span<const TensorMeta>) const {
  return factory_output(p_.sizes, p_.dtype, p_.device);
}

MetaList Random::infer(std::span<const TensorMeta> in) const {
  SymShape sizes(p_.sizes.begin(), p_.sizes.end());
  return {TensorMeta::contiguous(std::move(sizes), p_.dtype, in.back().device)};  // the state's
}

}  // namespace ember
