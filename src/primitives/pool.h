#pragma once
// Pooling, resampling and padding. Tensors are contiguous; pooling and resampling see 4-D
// [N, C, H, W] (the op builders view 1-D ops and unbatched inputs as such).
// Note [Pooling gradients]: max pooling saves int64 indices into each H * W input plane, and
// its gradient (MaxPoolBackward, shared with adaptive max pooling) adds grad_y at them. Average
// pooling, adaptive average pooling, upsampling and padding each have a backward kernel that is
// the exact adjoint of the forward.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dispatch/primitive.h"

namespace ember {

struct Pool2dParams {
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
  int64_t dilation_h = 1, dilation_w = 1;
  bool count_include_pad = true;
  std::optional<int64_t> divisor_override;
  /// Output sizes round up (PyTorch's ceil_mode); only the forward ops' output size reads it.
  bool ceil_mode = false;
  /// "stride=[1, 1], padding=[0, 0], ..." for error messages.
  std::string str() const;
  EMBER_FIELDS(kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w,
               count_include_pad, divisor_override, ceil_mode)
};

// clang-format off
EMBER_ENUM(PoolOp, uint8_t,
  MaxForward,           // {x} -> {y, indices}; window geometry and output size from params
  AvgForward,           // {x} -> {y}
  AvgBackward,          // {grad_y} -> {grad_x}
  AdaptiveAvgForward,   // {x} -> {y}; windows from the input and output sizes
  AdaptiveAvgBackward,  // {grad_y} -> {grad_x}
  AdaptiveMaxForward,   // {x} -> {y, indices}
  MaxBackward           // {grad_y, indices} -> {grad_x} (max and adaptive max)
);
// clang-format on

struct PoolingParams {
  PoolOp op = PoolOp::MaxForward;
  Pool2dParams pool;
  /// The output's H, W where the input does not determine them (Note [Inference]): the
  /// requested size (adaptive forward ops) or the forward input's (backward ops); empty for
  /// MaxForward and AvgForward, whose size follows from the window geometry.
  std::vector<int64_t> output_hw;
  EMBER_FIELDS(op, pool, output_hw)
};

class Pooling : public PrimitiveOf<Pooling, PoolingParams, PrimitiveKind::Pooling> {
 public:
  using PrimitiveOf::PrimitiveOf;
  Pooling(const char* name, PoolOp op, Pool2dParams p = {}, std::vector<int64_t> output_hw = {})
      : PrimitiveOf({op, p, std::move(output_hw)}) {
    set_display_name(name);
  }
  EMBER_INFER
  EMBER_VJP
  bool saves_input(size_t i) const override { return p_.op == PoolOp::MaxBackward && i == 1; }
  bool saves_output(size_t i) const override { return i == 1; }
  const char* default_name() const override { return "pooling"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  PoolOp op() const { return p_.op; }
  const Pool2dParams& pool() const { return p_.pool; }
};

EMBER_ENUM(ResampleOp, uint8_t, Nearest, Bilinear);

/// {x [N, C, H, W]} -> {y [N, C, Ho, Wo]} (forward) or {grad_y} -> {grad_x} (backward).
/// scale_h / scale_w are the user's scale factors when the kernel must use them (PyTorch's
/// `scales` arguments); otherwise sizes define the ratio. output_hw is the output's H, W (Ho, Wo
/// forward, H, W backward).
struct UpsampleParams {
  ResampleOp op = ResampleOp::Nearest;
  bool backward = false, align_corners = false;
  std::optional<double> scale_h, scale_w;
  std::vector<int64_t> output_hw;
  EMBER_FIELDS(op, backward, align_corners, scale_h, scale_w, output_hw)
};

class Upsample : public PrimitiveOf<Upsample, UpsampleParams, PrimitiveKind::Upsample> {
 public:
  using PrimitiveOf::PrimitiveOf;
  Upsample(const char* name, ResampleOp op, bool backward, bool align_corners,
           std::optional<double> scale_h, std::optional<double> scale_w,
           std::vector<int64_t> output_hw)
      : PrimitiveOf({op, backward, align_corners, scale_h, scale_w, std::move(output_hw)}) {
    set_display_name(name);
  }
  EMBER_INFER
  EMBER_VJP
  bool saves_input(size_t) const override { return false; }
  const char* default_name() const override { return "upsample"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  ResampleOp op() const { return p_.op; }
  bool backward() const { return p_.backward; }
  bool align_corners() const { return p_.align_corners; }
  std::optional<double> scale_h() const { return p_.scale_h; }
  std::optional<double> scale_w() const { return p_.scale_w; }
};

EMBER_ENUM(PadMode, uint8_t, Constant, Reflect, Replicate, Circular);

/// Forward: {x} -> {y}, y's last pad.size() / 2 dims padded by (left, right) pairs listed from
/// the last dim (F::pad's order), other elements filled with value (constant mode).
/// Backward: {grad_y} -> {grad_x}, summing every y element into the x element it was read from.
struct PadParams {
  PadMode mode = PadMode::Constant;
  std::vector<int64_t> pad;
  double value = 0;
  bool backward = false;
  EMBER_FIELDS(mode, pad, value, backward)
};

class Pad : public PrimitiveOf<Pad, PadParams, PrimitiveKind::Pad> {
 public:
  using PrimitiveOf::PrimitiveOf;
  Pad(const char* name, PadMode mode, std::vector<int64_t> pad, double value, bool backward)
      : PrimitiveOf({mode, std::move(pad), value, backward}) {
    set_display_name(name);
  }
  EMBER_INFER
  EMBER_VJP
  bool saves_input(size_t) const override { return false; }
  const char* default_name() const override { return "pad"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  PadMode mode() const { return p_.mode; }
  const std::vector<int64_t>& pad() const { return p_.pad; }
  double value() const { return p_.value; }
  bool backward() const { return p_.backward; }
};

}  // namespace ember
