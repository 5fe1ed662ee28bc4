// where, clamp/clip, lerp, addcmul/addcdiv, masked_fill: checks, promotion and dispatch.
#include "primitives/ternary.h"

#include <string_view>

#include "ember/autograd.h"
#include "ember/ops/elementwise.h"
#include "ops/promotion.h"
#include "ops/util.h"

namespace ember {

namespace {

using ops::check_defined;

std::vector<SymInt> broadcast_all(const std::vector<Tensor>& ts, const char* op) {
  std::vector<SymInt> shape;
  for (const Tensor& t : ts) {
    if (t.defined()) shape = ops::broadcast_pair(shape, t.sym_sizes(), op);
  }
  return shape;
}

std::vector<Tensor> converted(const std::vector<Tensor>& ts, ScalarType t) {
  std::vector<Tensor> r;
  for (const Tensor& x : ts) r.push_back(x.to(t));
  return r;
}

// Runs an elementwise primitive whose data inputs are `ins` (converted to `t`, the result's dtype
// too), into a new tensor, or in place into `self` (ins[0]) when inplace is set.
Tensor run_elementwise(Primitive&& prim, std::vector<Tensor> ins, ScalarType t, bool inplace,
                       const char* op) {
  auto shape = broadcast_all(ins, op);
  if (inplace) {
    Tensor self = ins[0];
    ops::check_inplace_cast(t, self, op);
    ops::check_inplace_shape(self, shape, op);
    for (size_t i = 1; i < ins.size(); ++i) ins[i] = ops::inplace_input(self, ins[i], op);
    if (t == self.dtype()) {
      prim.set_inplace();
      dispatch(prim, converted(ins, t), {self});
    } else {
      Tensor tmp = ops::empty_tensor(SymIntList(shape).concrete(op), t, op, self.device());
      dispatch(prim, converted(ins, t), {tmp});
      self.copy_(tmp);
    }
    return self;
  }
  return dispatch(prim, converted(ins, t))[0];
}

Tensor where_impl(const Tensor& cond, const Tensor& a, const Tensor& b) {
  check_defined(cond, "where", "condition");
  check_defined(a, "where", "input");
  check_defined(b, "where", "other");
  Tensor c = cond;
  // PyTorch still accepts a uint8 condition (deprecated, with a warning) and rejects the rest.
  if (c.dtype() == kUInt8) c = c.to(kBool);
  EMBER_CHECK_TYPE(c.dtype() == kBool,
                   "[where] where expected condition to be a boolean tensor, "
                   "but got a tensor with dtype ",
                   scalar_type_name(c.dtype()), " (", dtype_name(c.dtype()), ")");
  broadcast_all({c, a, b}, "where");  // the check; Where infers the shape
  const ScalarType t = ops::result_type({a, b});
  ops::check_implemented(t, "where");
  return dispatch(Where(), {c, a.to(t), b.to(t)})[0];
}

constexpr const char* kNoBound = "] At least one of 'min' or 'max' must not be None";

// The node's name is the public op's (clip is clamp), whichever bounds were given: autograd
// numbers clamp, clamp_min and clamp_max by their bounds' kind (Note [Overload suffix]).
Clamp named_clamp(Clamp prim, const char* op) {
  const std::string_view name(op);
  if (name.starts_with("clamp_min")) {
    prim.set_display_name("clamp_min");
  } else if (name.starts_with("clamp_max")) {
    prim.set_display_name("clamp_max");
  } else {
    prim.set_display_name("clamp");
  }
  return prim;
}

// clamp with Scalar bounds: the bounds take part in promotion as wrapped numbers, unless x is
// already floating (PyTorch's clamp meta function).
Tensor clamp_scalar(const Tensor& x, const std::optional<Scalar>& min,
                    const std::optional<Scalar>& max, const char* op, bool inplace) {
  check_defined(x, op, "input");
  EMBER_CHECK(min || max, "[", op, kNoBound);
  ScalarType t = x.dtype();
  ops::check_implemented(t, op);
  if (!is_floating_point(t)) {
    ops::ResultTypeState s = ops::update_result_type_state(x, {});
    if (min) s = ops::update_result_type_state(*min, s);
    if (max) s = ops::update_result_type_state(*max, s);
    t = ops::result_type(s);
    EMBER_CHECK(!inplace || t == x.dtype(), "[", op, "] result type ", scalar_type_name(t),
                " can't be cast to the desired output type ", scalar_type_name(x.dtype()));
  }
  if (t == kBool) ops::throw_not_implemented(op, "clamp_scalar_cpu", t);
  if (min) ops::check_scalar_fits(*min, t, op);
  if (max) ops::check_scalar_fits(*max, t, op);
  return run_elementwise(named_clamp(Clamp(min, max), op), {x}, t, inplace, op);
}

Tensor clamp_tensor(const Tensor& x, const std::optional<Tensor>& min,
                    const std::optional<Tensor>& max, const char* op, bool inplace = false) {
  check_defined(x, op, "input");
  const bool has_min = min && min->defined(), has_max = max && max->defined();
  EMBER_CHECK(has_min || has_max, "[", op, kNoBound);
  std::vector<Tensor> ins = {x};
  if (has_min) ins.push_back(*min);
  if (has_max) ins.push_back(*max);
  const ScalarType t = ops::result_type(ins);
  ops::check_implemented(t, op);
  // One bound runs as maximum/minimum, which accept bool; both bounds do not.
  if (t == kBool && has_min && has_max) ops::throw_not_implemented(op, "clamp_cpu", t);
  return run_elementwise(named_clamp(Clamp(has_min, has_max), op), ins, t, inplace, op);
}

void check_lerp(const Tensor& start, const Tensor& end, const Tensor* weight) {
  check_defined(start, "lerp", "input");
  check_defined(end, "lerp", "end");
  EMBER_CHECK(start.dtype() == end.dtype(), "[lerp] expected dtype ", dtype_name(start.dtype()),
              " for `end` but got dtype ", dtype_name(end.dtype()));
  if (weight) {
    check_defined(*weight, "lerp", "weight");
    EMBER_CHECK(start.dtype() == weight->dtype(), "[lerp] expected dtype ",
                dtype_name(start.dtype()), " for `weight` but got dtype ",
                dtype_name(weight->dtype()));
  }
  ops::check_implemented(start.dtype(), "lerp");
  if (!is_floating_point(start.dtype())) {
    ops::throw_not_implemented("lerp", weight ? "lerp_kernel_tensor" : "lerp_kernel_scalar",
                               start.dtype());
  }
}

Tensor addc(const Tensor& x, const Tensor& t1, const Tensor& t2, const Scalar& value, bool is_div,
            bool inplace) {
  const char* op = is_div ? (inplace ? "addcdiv_" : "addcdiv") : (inplace ? "addcmul_" : "addcmul");
  check_defined(x, op, "input");
  check_defined(t1, op, "tensor1");
  check_defined(t2, op, "tensor2");
  EMBER_CHECK(!(is_div && is_integral(t1.dtype(), true) && is_integral(t2.dtype(), true)), "[", op,
              "] Integer division with addcdiv is no longer supported, and in a future  "
              "release addcdiv will perform a true division of tensor1 and tensor2. The historic "
              "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
              "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
              "tensor2) for float inputs. The future addcdiv behavior is just the latter "
              "implementation: (input + value * tensor1 / tensor2), for all dtypes.");
  const ScalarType t = ops::result_type({x, t1, t2});
  ops::check_implemented(t, op);
  if (t == kBool) ops::throw_not_implemented(op, is_div ? "addcdiv_cpu_out" : "addcmul_cpu_out", t);
  ops::check_scalar_fits(value, is_floating_point(t) ? opmath_type(t) : t, op);
  return run_elementwise(Addc(is_div, value), {x, t1, t2}, t, inplace, op);
}

Tensor masked_fill_impl(const Tensor& x, const Tensor& mask, const Scalar& value, bool inplace) {
  const char* op = inplace ? "masked_fill_" : "masked_fill";
  check_defined(x, op, "input");
  check_defined(mask, op, "mask");
  EMBER_CHECK_TYPE(mask.dtype() == kBool, "[", op,
                   "] masked_fill_ only supports boolean masks, "
                   "but got mask with dtype ",
                   dtype_name(mask.dtype()));
  ops::check_implemented(x.dtype(), op);
  ops::check_scalar_fits(value, x.dtype(), op);
  if (!inplace) {
    ops::check_broadcastable(x, mask, op);
    return dispatch(MaskedFill(value), {x, mask})[0];
  }
  Tensor self = x;
  ops::check_inplace_shape(self, broadcast_all({x, mask}, op), op);
  Tensor m = ops::inplace_input(self, mask, op);
  std::vector<Tensor> outs = {self};
  dispatch(in_place(MaskedFill(value)), {self, m}, outs);
  return self;
}

Scalar masked_fill_value(const Tensor& value, const char* op) {
  check_defined(value, op, "value");
  EMBER_CHECK(value.dim() == 0, "[", op,
              "] masked_fill_ only supports a 0-dimensional value "
              "tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  return value.item();
}

}  // namespace

Tensor where(const Tensor& condition, const Tensor& input, const Tensor& other) {
  return where_impl(condition, input, other);
}
Tensor where(const Tensor& condition, const Scalar& input, const Tensor& other) {
  return where_impl(condition, ops::wrapped_scalar(input), other);
}
Tensor where(const Tensor& condition, const Tensor& input, const Scalar& other) {
  return where_impl(condition, input, ops::wrapped_scalar(other));
}
Tensor where(const Tensor& condition, const Scalar& input, const Scalar& other) {
  return where_impl(condition, ops::wrapped_scalar(input), ops::wrapped_scalar(other));
}
Tensor Tensor::where(const Tensor& condition, const Tensor& other) const {
  return where_impl(condition, *this, other);
}

Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max) {
  return clamp_scalar(x, min, max, "clamp", false);
}
Tensor clamp(const Tensor& x, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return clamp_tensor(x, min, max, "clamp");
}
Tensor clip(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max) {
  return clamp_scalar(x, min, max, "clip", false);
}
Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  return clamp_scalar(*this, min, max, "clamp", false);
}
Tensor Tensor::clamp(const std::optional<Tensor>& min, const std::optional<Tensor>& max) const {
  return clamp_tensor(*this, min, max, "clamp");
}
const Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) const {
  clamp_scalar(mutable_self(), min, max, "clamp_", true);
  return *this;
}
Tensor Tensor::clip(std::optional<Scalar> min, std::optional<Scalar> max) const {
  return clamp_scalar(*this, min, max, "clip", false);
}
const Tensor& Tensor::clamp_(const std::optional<Tensor>& min,
                             const std::optional<Tensor>& max) const {
  clamp_tensor(mutable_self(), min, max, "clamp_", true);
  return *this;
}
Tensor clamp_min(const Tensor& x, const Scalar& min) {
  return clamp_scalar(x, min, std::nullopt, "clamp_min", false);
}
Tensor clamp_min(const Tensor& x, const Tensor& min) {
  return clamp_tensor(x, min, std::nullopt, "clamp_min");
}
Tensor clamp_max(const Tensor& x, const Scalar& max) {
  return clamp_scalar(x, std::nullopt, max, "clamp_max", false);
}
Tensor clamp_max(const Tensor& x, const Tensor& max) {
  return clamp_tensor(x, std::nullopt, max, "clamp_max");
}
Tensor Tensor::clamp_min(const Scalar& min) const { return ember::clamp_min(*this, min); }
Tensor Tensor::clamp_min(const Tensor& min) const { return ember::clamp_min(*this, min); }
Tensor Tensor::clamp_max(const Scalar& max) const { return ember::clamp_max(*this, max); }
Tensor Tensor::clamp_max(const Tensor& max) const { return ember::clamp_max(*this, max); }
const Tensor& Tensor::clamp_min_(const Scalar& min) const {
  clamp_scalar(mutable_self(), min, std::nullopt, "clamp_min_", true);
  return *this;
}
const Tensor& Tensor::clamp_min_(const Tensor& min) const {
  clamp_tensor(mutable_self(), min, std::nullopt, "clamp_min_", true);
  return *this;
}
const Tensor& Tensor::clamp_max_(const Scalar& max) const {
  clamp_scalar(mutable_self(), std::nullopt, max, "clamp_max_", true);
  return *this;
}
const Tensor& Tensor::clamp_max_(const Tensor& max) const {
  clamp_tensor(mutable_self(), std::nullopt, max, "clamp_max_", true);
  return *this;
}

Tensor lerp(const Tensor& start, const Tensor& end, const Scalar& weight) {
  check_lerp(start, end, nullptr);
  return run_elementwise(Lerp(weight), {start, end}, start.dtype(), false, "lerp");
}
Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight) {
  check_lerp(start, end, &weight);
  return run_elementwise(Lerp(std::nullopt), {start, end, weight}, start.dtype(), false, "lerp");
}
Tensor Tensor::lerp(const Tensor& end, const Scalar& weight) const {
  return ember::lerp(*this, end, weight);
}
Tensor Tensor::lerp(const Tensor& end, const Tensor& weight) const {
  return ember::lerp(*this, end, weight);
}
const Tensor& Tensor::lerp_(const Tensor& end, const Scalar& weight) const {
  check_lerp(*this, end, nullptr);
  run_elementwise(Lerp(weight), {*this, end}, dtype(), true, "lerp_");
  return *this;
}
const Tensor& Tensor::lerp_(const Tensor& end, const Tensor& weight) const {
  check_lerp(*this, end, &weight);
  run_elementwise(Lerp(std::nullopt), {*this, end, weight}, dtype(), true, "lerp_");
  return *this;
}

Tensor addcmul(const Tensor& x, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return addc(x, t1, t2, value, false, false);
}
Tensor addcdiv(const Tensor& x, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return addc(x, t1, t2, value, true, false);
}
Tensor Tensor::addcmul(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return addc(*this, t1, t2, value, false, false);
}
Tensor Tensor::addcdiv(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return addc(*this, t1, t2, value, true, false);
}
const Tensor& Tensor::addcmul_(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  addc(mutable_self(), t1, t2, value, false, true);
  return *this;
}
const Tensor& Tensor::addcdiv_(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  addc(mutable_self(), t1, t2, value, true, true);
  return *this;
}

Tensor masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value) {
  return masked_fill_impl(x, mask, value, false);
}
namespace {
Tensor masked_fill_tensor(const Tensor& x, const Tensor& mask, const Tensor& value, bool inplace) {
  const char* op = inplace ? "masked_fill_" : "masked_fill";
  const Scalar v = masked_fill_value(value, op);
  if (!ops::value_needs_grad(value)) return masked_fill_impl(x, mask, v, inplace);
  check_defined(mask, op, "mask");
  EMBER_CHECK_TYPE(mask.dtype() == kBool, "[", op, "] masked_fill_ only supports boolean masks, ",
                   "but got mask with dtype ", dtype_name(mask.dtype()));
  return ops::fill_with_value_grad(x, mask, value, inplace);
}

}  // namespace

namespace ops {
bool value_needs_grad(const Tensor& value) { return value.requires_grad() && is_grad_enabled(); }

Tensor fill_with_value_grad(Tensor x, const Tensor& mask, const Tensor& value, bool inplace) {
  Tensor filled = where(mask, value.to(x.dtype()), x);
  return inplace ? x.copy_(filled) : filled;
}
}  // namespace ops

Tensor masked_fill(const Tensor& x, const Tensor& mask, const Tensor& value) {
  return masked_fill_tensor(x, mask, value, false);
}
Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const {
  return masked_fill_impl(*this, mask, value, false);
}
Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const {
  return masked_fill_tensor(*this, mask, value, false);
}
const Tensor& Tensor::masked_fill_(const Tensor& mask, const Scalar& value) const {
  masked_fill_impl(mutable_self(), mask, value, true);
  return *this;
}
const Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) const {
  masked_fill_tensor(mutable_self(), mask, value, true);
  return *this;
}

}  // namespace ember
