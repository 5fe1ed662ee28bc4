// F::pad: the checks of aten/src/ATen/native/PadNd.cpp and the padding kernels, then the Pad
// primitive (src/primitives/pool.h) on the contiguous input.
#include "ember/nn/functional/padding.h"

#include <type_traits>

#include "nn/conv_internal.h"
#include "ops/util.h"

namespace ember::nn {
namespace {

using ops::shape_str;

PadMode to_mode(const functional::PadFuncOptions::mode_t& m) {
  if (std::holds_alternative<enumtype::kReflect>(m)) return PadMode::Reflect;
  if (std::holds_alternative<enumtype::kReplicate>(m)) return PadMode::Replicate;
  if (std::holds_alternative<enumtype::kCircular>(m)) return PadMode::Circular;
  return PadMode::Constant;
}

const char* pad_op_name(PadMode mode, size_t pairs) {
  static const char* names[3][3] = {{"reflection_pad1d", "reflection_pad2d", "reflection_pad3d"},
                                    {"replication_pad1d", "replication_pad2d", "replication_pad3d"},
                                    {"circular_pad1d", "circular_pad2d", "circular_pad3d"}};
  if (mode == PadMode::Constant) return "constant_pad_nd";
  return names[static_cast<int>(mode) - 1][pairs - 1];
}

}  // namespace

namespace detail {

Tensor pad_backward(const Tensor& grad_output, PadMode mode, const std::vector<int64_t>& pad,
                    const std::vector<int64_t>& input_size) {
  const char* name = "pad_backward";
  EMBER_CHECK(grad_output.defined() &&
                  grad_output.dim() == static_cast<int64_t>(input_size.size()) &&
                  pad.size() % 2 == 0 && pad.size() <= 2 * input_size.size(),
              "[", name, "] grad_output, input_size and pad do not match");
  const int64_t nd = grad_output.dim();
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t k = nd - 1 - d;
    const int64_t extra =
        2 * k < static_cast<int64_t>(pad.size()) ? pad[2 * k] + pad[2 * k + 1] : 0;
    EMBER_CHECK(grad_output.size(d) == input_size[d] + extra, "[", name, "] grad_output ",
                shape_str(grad_output.sizes()), " does not match input_size ",
                shape_str(input_size));
  }
  // The source tables of non-constant modes must stay inside the input (memory safety).
  for (int64_t d = nd - static_cast<int64_t>(pad.size()) / 2; d < nd && mode != PadMode::Constant;
       ++d) {
    const int64_t k = nd - 1 - d, l = pad[2 * k], r = pad[2 * k + 1], in = input_size[d];
    const bool ok = in > 0 && (mode != PadMode::Reflect || (l < in && r < in)) &&
                    (mode != PadMode::Circular || (l <= in && r <= in));
    EMBER_CHECK(ok, "[", name, "] padding (", l, ", ", r, ") is invalid for dimension ", d,
                " of size ", in);
  }
  EMBER_CHECK_TYPE(is_floating_point(grad_output.dtype()), "[", name, "] \"", name,
                   "\" not implemented for '", scalar_type_name(grad_output.dtype()), "' (dtype ",
                   dtype_name(grad_output.dtype()), ")");
  return dispatch(Pad(name, mode, pad, 0.0, true), {grad_output.contiguous()})[0];
}

}  // namespace detail

namespace functional {

Tensor pad(const Tensor& input, const PadFuncOptions& o) {
  EMBER_CHECK(input.defined(), "[pad] argument 'input' is an undefined tensor");
  const std::vector<int64_t>& p = o.pad();
  const int64_t nd = input.dim(), np = static_cast<int64_t>(p.size());
  const PadMode mode = to_mode(o.mode());
  EMBER_CHECK(np % 2 == 0, "[pad] Padding length must be divisible by 2");
  EMBER_CHECK(np <= 2 * nd,
              "[pad] Padding length should be less than or equal to two times the "
              "input dimension but got padding length ",
              np, " and input of dimension ", nd);
  const int64_t m = np / 2;
  if (mode != PadMode::Constant) {
    EMBER_CHECK(o.value() == 0, "[pad] Padding mode \"", enumtype::name(o.mode()),
                "\" doesn't take in value argument");
    EMBER_CHECK_NOT_IMPL(m >= 1 && m <= 3 && (nd == m + 1 || nd == m + 2),
                         "[pad] Only 2D, 3D, "
                         "4D, 5D padding with non-constant padding are supported for now");
    for (int64_t i = nd - m; i < nd; ++i) {
      EMBER_CHECK(input.sym_size(i) > 0, "[pad] ", pad_op_name(mode, m), ": Expected ", m + 1,
                  "D or ", m + 2,
                  "D (batch mode) tensor with possibly 0 batch size and other non-zero "
                  "dimensions for input, but got: ",
                  shape_str(input.sym_sizes()));
    }
  }
  // A dynamic dim is a SymInt, checked by its range (Note [Symbolic shapes]); a concrete one stays
  // int64_t, so that huge paddings reach the overflow checks.
  auto check_dim = [&](int64_t d, int64_t l, int64_t r, auto in) {
    if (mode == PadMode::Reflect) {
      EMBER_CHECK(l < in && r < in,
                  "[pad] Argument #4: Padding size should be less than the "
                  "corresponding input dimension, but got: padding (",
                  l, ", ", r, ") at dimension ", d, " of input ", shape_str(input.sym_sizes()));
    }
    if (mode == PadMode::Circular) {
      EMBER_CHECK(l <= in && r <= in, "[pad] Padding value causes wrapping around more than once.");
    }
    decltype(in) out;
    if constexpr (std::is_same_v<decltype(in), int64_t>) {
      out = checked_add(checked_add(in, l, "pad", "the padded size"), r, "pad", "the padded size");
    } else {
      out = in + l + r;
    }
    // A negative pad removes elements (PyTorch narrows the input): never more than there are.
    EMBER_CHECK((l >= 0 || in + l >= 0) && (r >= 0 || in + r >= 0), "[pad] negative padding (", l,
                ", ", r, ") removes more than the input size ", in, " at dimension ", d);
    if (mode == PadMode::Constant) {
      EMBER_CHECK(out >= 0, "[pad] The input size ", in, ", plus negative padding ", l, " and ", r,
                  " resulted in a negative output size, which is invalid. Check dimension ", d,
                  " of your input.");
    } else {
      EMBER_CHECK(out >= 1, "[pad] ", pad_op_name(mode, m), ": input (size ", in, " at dimension ",
                  d, ") is too small. Calculated output size: ", out);
    }
  };
  for (int64_t d = nd - m; d < nd; ++d) {
    const int64_t k = nd - 1 - d, l = p[2 * k], r = p[2 * k + 1];
    const SymInt in = input.sym_size(d);
    if (in.is_symbolic()) {
      check_dim(d, l, r, in);
    } else {
      check_dim(d, l, r, in.guard_int());
    }
  }
  return dispatch(Pad(pad_op_name(mode, std::max<int64_t>(m, 1)), mode, p, o.value(), false),
                  {input.contiguous()})[0];
}

}  // namespace functional
}  // namespace ember::nn
