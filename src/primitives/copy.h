#pragma once
#include <functional>
#include <optional>

#include "dispatch/primitive.h"
#include "primitives/ternary.h"  // FillValue

namespace ember {

/// outputs[0] = inputs[0], broadcast and converted to the output's dtype. Inference states a
/// contiguous tensor of the input's sizes in `dtype` (the input's when absent); an in-place copy
/// (copy_) passes a source expanded to the target's sizes and the target's dtype.
struct CopyParams {
  std::optional<ScalarType> dtype;
  EMBER_FIELDS(dtype)
};

class Copy : public PrimitiveOf<Copy, CopyParams, PrimitiveKind::Copy> {
 public:
  using PrimitiveOf::PrimitiveOf;
  explicit Copy(ScalarType dtype) : PrimitiveOf({dtype}) {}
  bool overwrites_target() const override { return true; }
  EMBER_INFER
  EMBER_VJP
  bool saves_input(size_t) const override { return false; }
  const char* default_name() const override { return "copy_"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
};

/// outputs[0] filled with a value.
class Fill : public PrimitiveOf<Fill, FillValue, PrimitiveKind::Fill> {
 public:
  using PrimitiveOf::PrimitiveOf;
  explicit Fill(Scalar value) : PrimitiveOf({value}) {}
  bool overwrites_target() const override { return true; }
  const char* default_name() const override { return "fill_"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  const Scalar& value() const { return p_.value; }
};

/// A view's absolute geometry in its input's storage (elements of `dtype` when given).
struct ViewParams {
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;
  std::optional<ScalarType> dtype;
  EMBER_FIELDS(sizes, strides, offset, dtype)
};

/// A view: outputs[0] shares inputs[0]'s storage with the given geometry. Every view op
/// (view, permute, slice, expand, ...) is an AsStrided with its own name. With `dtype` the view
/// reinterprets the bytes as another type (Tensor::view(ScalarType)); the geometry is then in
/// elements of that type.
class View : public PrimitiveOf<View, ViewParams, PrimitiveKind::View> {
 public:
  /// The same view taken logically (by dims and indices, not strides) of another tensor of the
  /// input's shape. Autograd replays it on zeros to place a gradient when the input's memory
  /// overlaps (an expanded tensor), where the view's strides cannot say which element it took.
  /// Not a parameter: a closure cannot be compared or serialised (views as logical primitives,
  /// issue "Redesign first" item 4, will replace it).
  using Replay = std::function<Tensor(const Tensor&)>;
  using PrimitiveOf::PrimitiveOf;
  View(const char* name, std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset,
       std::optional<ScalarType> dtype = std::nullopt, Replay replay = nullptr)
      : PrimitiveOf({std::move(sizes), std::move(strides), offset, dtype}),
        replay_(std::move(replay)) {
    set_display_name(name);
  }
  const char* default_name() const override { return "as_strided"; }
  bool is_view() const override { return true; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  const std::vector<int64_t>& sizes() const { return p_.sizes; }
  const std::vector<int64_t>& strides() const { return p_.strides; }
  int64_t offset() const { return p_.offset; }
  const std::optional<ScalarType>& dtype() const { return p_.dtype; }
  const Replay& replay() const { return replay_; }

 private:
  Replay replay_;
};

}  // namespace ember
