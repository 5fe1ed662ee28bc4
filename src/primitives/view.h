#pragma once
// Note [Views]: every view op is a logical primitive (reshape, permute, select, ...) whose
// parameters are its arguments as the user gave them, resolved (wrapped dims, normalised
// indices). Its layout() computes the view's sizes, strides and storage offset from its input's,
// so the same primitive infers on SymInts, runs on any tensor of a compatible shape (a graph or
// a vjp replays it from its parameters) and carries its own vjp. Only as_strided is defined on
// memory rather than on elements; autograd differentiates it from the layouts (Note [View
// geometry] in src/autograd/views.cpp).
#include "dispatch/primitive.h"

namespace ember {

/// Where a view's elements lie: sizes and strides in elements, the storage offset of the first
/// element, and the element type. Inference starts from offset 0 (it does not know the input's).
struct ViewLayout {
  SymShape sizes, strides;
  SymInt offset;
  ScalarType dtype = kFloat32;
};

/// `t`'s layout.
ViewLayout layout_of(const Tensor& t);
/// A tensor over `in`'s storage (and version counter) with layout `l`; `op` names the view in
/// errors (a numel that overflows).
Tensor make_view(const Tensor& in, const ViewLayout& l, const char* op);

/// The common base of the view primitives: `Derived::layout(ViewLayout) const` gives the
/// output's layout from the input's; inference and the kernel (which only makes metadata, on
/// every device) both call it.
template <typename Derived, typename Params, PrimitiveKind K>
class ViewOf : public PrimitiveOf<Derived, Params, K> {
 public:
  using PrimitiveOf<Derived, Params, K>::PrimitiveOf;
  ViewOf(Params p, const char* name) : PrimitiveOf<Derived, Params, K>(std::move(p)) {
    this->set_display_name(name);
  }
  bool is_view() const final { return true; }
  bool saves_input(size_t) const override { return false; }
  EMBER_INFER
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
    outputs.push_back(make_view(inputs[0], derived().layout(layout_of(inputs[0])), this->name()));
  }

 private:
  const Derived& derived() const { return static_cast<const Derived&>(*this); }
};

template <typename Derived, typename Params, PrimitiveKind K>
MetaList ViewOf<Derived, Params, K>::infer(std::span<const TensorMeta> inputs) const {
  const TensorMeta& in = inputs[0];
  ViewLayout l = derived().layout({in.sizes, in.strides, 0, in.dtype});
  return {TensorMeta{std::move(l.sizes), std::move(l.strides), l.dtype, in.device}};
}

struct NoViewParams {
  EMBER_FIELDS()
};
struct ShapeParams {
  std::vector<SymInt> sizes;  // Note [Symbolic shapes]: a traced reshape keeps its expressions
  EMBER_FIELDS(sizes)
};
struct DimsParams {
  std::vector<int64_t> dims;
  EMBER_FIELDS(dims)
};

/// as_strided: the given sizes and strides at an absolute storage offset of the input's storage.
struct AsStridedParams {
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;
  EMBER_FIELDS(sizes, strides, offset)
};
class AsStrided : public ViewOf<AsStrided, AsStridedParams, PrimitiveKind::AsStrided> {
 public:
  using ViewOf::ViewOf;
  const char* default_name() const override { return "as_strided"; }
  ViewLayout layout(ViewLayout in) const;
};

/// The input itself under another handle (alias, detach, t of a vector).
class Alias : public ViewOf<Alias, NoViewParams, PrimitiveKind::Alias> {
 public:
  using ViewOf::ViewOf;
  const char* default_name() const override { return "alias"; }
  ViewLayout layout(ViewLayout in) const { return in; }
  EMBER_VJP
};

/// view / reshape / flatten: the elements in row-major order under new sizes (no -1), where
/// the input's strides allow it without a copy (PyTorch's computeStride).
class Reshape : public ViewOf<Reshape, ShapeParams, PrimitiveKind::Reshape> {
 public:
  using ViewOf::ViewOf;
  const char* default_name() const override { return "view"; }
  ViewLayout layout(ViewLayout in) const;
  EMBER_VJP
};
/// The strides that view (sizes, strides) as `shape` without copying, or nullopt.
std::optional<SymShape> reshape_strides(const SymShape& sizes, const SymShape& strides,
                                        const SymShape& shape);

/// squeeze: drops the listed dims that have size 1 (squeeze() lists every dim).
class Squeeze : public ViewOf<Squeeze, DimsParams, PrimitiveKind::Squeeze> {
 public:
  using ViewOf::ViewOf;
  const char* default_name() const override { return "squeeze"; }
  ViewLayout layout(ViewLayout in) const;
  EMBER_VJP
};

/// unsqueeze: a size-1 dim inserted at `dim` (in 0..dim()).
struct UnsqueezeParams {
  int64_t dim = 0;
  EMBER_FIELDS(dim)
};
class Unsqueeze : public ViewOf<Unsqueeze, UnsqueezeParams, PrimitiveKind::Unsqueeze> {
 public:
  using ViewOf::ViewOf;
  const char* default_name() const override { return "unsqueeze"; }
  ViewLayout layout(ViewLayout in) const;
  EMBER_VJP
};

/// permute (transpose, t, movedim): output dim i is input dim dims[i].
class Permute : public ViewOf<Permute, DimsParams, PrimitiveKind::Permute> {
 public:
  using ViewOf::ViewOf;
  const char* default_name() const override { return "permute"; }
  ViewLayout layout(ViewLayout in) const;
  EMBER_VJP
};

/// expand: broadcast to `sizes` (new leading dims and size-1 dims get stride 0).
class Expand : public ViewOf<Expand, ShapeParams, PrimitiveKind::Expand> {
 public:
  using ViewOf::ViewOf;
  const char* default_name() const override { return "expand"; }
  ViewLayout layout(ViewLayout in) const;
  EMBER_VJP
};

/// slice (narrow): elements start, start + step, ... before end of `dim`, with
/// 0 <= start <= end <= size and step > 0. Note [Symbolic shapes]: where start or end is
/// symbolic (a traced x[::2] or x[:-1] of a dynamic dim), sym_bounds holds {start, end} and the
/// int64 fields are unused; concrete slices leave it empty (no allocation per eager slice).
struct SliceParams {
  int64_t dim = 0, start = 0, end = 0, step = 1;
  std::vector<SymInt> sym_bounds = {};
  EMBER_FIELDS(dim, start, end, step, sym_bounds)
};
class StridedSlice : public ViewOf<StridedSlice, SliceParams, PrimitiveKind::StridedSlice> {
 public:
  using ViewOf::ViewOf;
  const char* default_name() const override { return "slice"; }
  ViewLayout layout(ViewLayout in) const;
  EMBER_VJP
};

/// select: element `index` (0 <= index < size) of `dim`, which is removed.
struct SelectParams {
  int64_t dim = 0, index = 0;
  EMBER_FIELDS(dim, index)
};
class Select : public ViewOf<Select, SelectParams, PrimitiveKind::Select> {
 public:
  using ViewOf::ViewOf;
  const char* default_name() const override { return "select"; }
  ViewLayout layout(ViewLayout in) const;
  EMBER_VJP
};

/// diagonal: the `offset`-th diagonal of dims dim1 and dim2 (distinct, wrapped), appended as
/// the last dim.
struct DiagonalParams {
  int64_t offset = 0, dim1 = 0, dim2 = 1;
  EMBER_FIELDS(offset, dim1, dim2)
};
class Diagonal : public ViewOf<Diagonal, DiagonalParams, PrimitiveKind::Diagonal> {
 public:
  using ViewOf::ViewOf;
  const char* default_name() const override { return "diagonal"; }
  ViewLayout layout(ViewLayout in) const;
  EMBER_VJP
};

/// Tensor::view(dtype): the same bytes as another type; with another element size the last dim
/// (stride 1) is split or merged. Not differentiable across types.
struct ViewDtypeParams {
  ScalarType dtype = kFloat32;
  EMBER_FIELDS(dtype)
};
class ViewDtype : public ViewOf<ViewDtype, ViewDtypeParams, PrimitiveKind::ViewDtype> {
 public:
  using ViewOf::ViewOf;
  const char* default_name() const override { return "view"; }
  ViewLayout layout(ViewLayout in) const;
  EMBER_VJP
};

}  // namespace ember
