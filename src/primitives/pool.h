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
  std::string str() const;
};

enum class PoolOp {
  MaxForward,           // {x} -> {y, indices}; window geometry from params, sizes from y
  AvgForward,           // {x} -> {y}
  AvgBackward,          // {grad_y} -> {grad_x}
  AdaptiveAvgForward,   // {x} -> {y}; windows from the input and output sizes
  AdaptiveAvgBackward,  // {grad_y} -> {grad_x}
  AdaptiveMaxForward,   // {x} -> {y, indices}
  MaxBackward,          // {grad_y, indices} -> {grad_x} (max and adaptive max)
};

class Pooling : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(Pooling)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t i) const override { return op_ == PoolOp::MaxBackward && i == 1; }
  bool saves_output(size_t i) const override { return i == 1; }
  Pooling(const char* name, PoolOp op, Pool2dParams p = {}) : name_(name), op_(op), p_(p) {}
  const char* name() const override { return name_; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::string describe() const override;
  PoolOp op() const { return op_; }
  const Pool2dParams& params() const { return p_; }

 private:
  const char* name_;
  PoolOp op_;
  Pool2dParams p_;
};

enum class ResampleOp { Nearest, Bilinear };

/// {x [N, C, H, W]} -> {y [N, C, Ho, Wo]} (forward) or {grad_y} -> {grad_x} (backward).
/// scale_h / scale_w are the user's scale factors when the kernel must use them (PyTorch's
/// `scales` arguments); otherwise sizes define the ratio.
class Upsample : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(Upsample)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t) const override { return false; }
  Upsample(const char* name, ResampleOp op, bool backward, bool align_corners,
           std::optional<double> scale_h, std::optional<double> scale_w)
      : name_(name),
        op_(op),
        backward_(backward),
        align_corners_(align_corners),
        scale_h_(scale_h),
        scale_w_(scale_w) {}
  const char* name() const override { return name_; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::string describe() const override;
  ResampleOp op() const { return op_; }
  bool backward() const { return backward_; }
  bool align_corners() const { return align_corners_; }
  std::optional<double> scale_h() const { return scale_h_; }
  std::optional<double> scale_w() const { return scale_w_; }

 private:
  const char* name_;
  ResampleOp op_;
  bool backward_, align_corners_;
  std::optional<double> scale_h_, scale_w_;
};

enum class PadMode { Constant, Reflect, Replicate, Circular };

/// Forward: {x} -> {y}, y's last pad.size() / 2 dims padded by (left, right) pairs listed from
/// the last dim (F::pad's order), other elements filled with value (constant mode).
/// Backward: {grad_y} -> {grad_x}, summing every y element into the x element it was read from.
class Pad : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(Pad)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t) const override { return false; }
  Pad(const char* name, PadMode mode, std::vector<int64_t> pad, double value, bool backward)
      : name_(name), mode_(mode), pad_(std::move(pad)), value_(value), backward_(backward) {}
  const char* name() const override { return name_; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::string describe() const override;
  PadMode mode() const { return mode_; }
  const std::vector<int64_t>& pad() const { return pad_; }
  double value() const { return value_; }
  bool backward() const { return backward_; }

 private:
  const char* name_;
  PadMode mode_;
  std::vector<int64_t> pad_;
  double value_;
  bool backward_;
};

}  // namespace ember
