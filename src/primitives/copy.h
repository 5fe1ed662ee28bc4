#pragma once
#include <functional>
#include <optional>

#include "dispatch/primitive.h"

namespace ember {

/// outputs[0] = inputs[0], broadcast and converted to the output's dtype.
class Copy : public Primitive {
 public:
  bool overwrites_target() const override { return true; }
  EMBER_PRIMITIVE_CLONE(Copy)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t) const override { return false; }
  const char* name() const override { return "copy_"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
};

/// outputs[0] filled with a value.
class Fill : public Primitive {
 public:
  bool overwrites_target() const override { return true; }
  explicit Fill(Scalar value) : value_(value) {}
  const char* name() const override { return "fill_"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  const Scalar& value() const { return value_; }

 private:
  Scalar value_;
};

/// A view: outputs[0] shares inputs[0]'s storage with the given geometry. Every view op
/// (view, permute, slice, expand, ...) is an AsStrided with its own name. With `dtype` the view
/// reinterprets the bytes as another type (Tensor::view(ScalarType)); the geometry is then in
/// elements of that type.
class View : public Primitive {
 public:
  /// The same view taken logically (by dims and indices, not strides) of another tensor of the
  /// input's shape. Autograd replays it on zeros to place a gradient when the input's memory
  /// overlaps (an expanded tensor), where the view's strides cannot say which element it took.
  using Replay = std::function<Tensor(const Tensor&)>;
  View(const char* name, std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset,
       std::optional<ScalarType> dtype = std::nullopt, Replay replay = nullptr)
      : name_(name),
        sizes_(std::move(sizes)),
        strides_(std::move(strides)),
        offset_(offset),
        dtype_(dtype),
        replay_(std::move(replay)) {}
  const char* name() const override { return name_; }
  bool is_view() const override { return true; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  const std::vector<int64_t>& sizes() const { return sizes_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  const std::optional<ScalarType>& dtype() const { return dtype_; }
  const Replay& replay() const { return replay_; }

 private:
  const char* name_;
  std::vector<int64_t> sizes_, strides_;
  int64_t offset_;
  std::optional<ScalarType> dtype_;
  Replay replay_;
};

}  // namespace ember
