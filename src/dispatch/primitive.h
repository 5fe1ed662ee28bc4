#pragma once
// Note [Primitive]: one class per operation kind (or per family, parametrised by an op enum).
// A primitive is a value: its kind, plus parameters in one reflected struct (Note [Primitive
// params]) that give it equality, a hash, a description and a JSON form. It knows its outputs'
// metadata (Note [Inference]) and its vjp, written with Ember ops (so that higher-order gradients
// work); its kernels are registered by kind with each backend (Note [Backend]). Ops validate,
// build a primitive and call dispatch().
#include <cstddef>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "dispatch/params.h"
#include "ember/core/small_vector.h"
#include "ember/core/tensor.h"

namespace ember {

/// Every primitive kind; a new primitive adds its class name here (the registry in
/// src/primitives/registry.cpp then fails to compile until it can construct it).
// clang-format off
#define EMBER_PRIMITIVE_KINDS(X)                                                                  \
  X(Unary) X(Binary) X(Where) X(Clamp) X(Lerp) X(Addc) X(MaskedFill) X(IsClose) X(Copy) X(Fill)   \
  X(AsStrided) X(Alias) X(Reshape) X(Squeeze) X(Unsqueeze) X(Permute) X(Expand) X(StridedSlice)   \
  X(Select) X(Diagonal) X(ViewDtype)                                                              \
  X(Range) X(Random) X(Reduce) X(Scan) X(Softmax) X(Matmul) X(Cat) X(Flip) X(Roll)                \
  X(Repeat) X(Triangle) X(Index) X(IndexPut) X(Nonzero) X(IndexSelect) X(Gather) X(Scatter)       \
  X(IndexUpdate) X(Take) X(MaskedScatter) X(Bincount) X(Histc) X(SortSelect) X(Unique)            \
  X(SearchSorted) X(Convolution) X(SlidingWindow) X(Pooling) X(Upsample) X(Pad)                   \
  X(ScaledDotProductAttention) X(ScaledDotProductAttentionBackward) X(LinalgCholesky)             \
  X(LinalgLuFactor) X(LinalgLuSolve) X(LinalgSolve) X(LinalgSolveTriangular) X(LinalgEigh)        \
  X(LinalgSvd) X(LinalgQr) X(LinalgHouseholderProduct) X(LinalgDet)                             \
  X(SoftmaxBackward) X(LayerNorm) X(LayerNormBackward) X(RmsNorm) X(RmsNormBackward)     \
  X(UnaryBackward) X(EmbeddingBag) X(FusedAdam) X(FusedSgd) X(FusedAdagrad)
// clang-format on

enum class PrimitiveKind : uint8_t {
#define EMBER_KIND_ENUM(Name) Name,
  EMBER_PRIMITIVE_KINDS(EMBER_KIND_ENUM)
#undef EMBER_KIND_ENUM
};
/// The class name of a kind ("Unary", "Binary", ...): the stable id used in JSON.
const char* primitive_kind_name(PrimitiveKind kind);
/// Every kind, in declaration order.
const std::vector<PrimitiveKind>& all_primitive_kinds();

namespace detail {
/// Reads a symbolic size's text while a graph with symbols is read (Note [Symbolic shapes]);
/// null otherwise, when primitive_from_json refuses expressions.
using SymIntReader = std::function<SymInt(const std::string&)>;
const SymIntReader*& sym_int_reader();
}  // namespace detail

/// Note [Mutation and aliasing]: a primitive declares what a call does to memory besides
/// writing fresh outputs. Its in-place form (inplace()) writes output 0, the caller's target; the
/// target's previous values are read through input 0 (the target itself, or a converted copy of
/// it), unless overwrites_target() says every element is overwritten (copy_, fill_, random fills,
/// whose inputs are sources). Views (aliased_input) share their input's storage. The in-place-only
/// primitives of the old design (Scatter, IndexUpdate, IndexPut, MaskedScatter) also have an
/// out-of-place form that starts from a copy of input 0, so a functional graph needs no clone.
///
/// Note [Inference]: what a primitive knows about a tensor without its data. Primitives infer
/// their outputs' metadata from their inputs' (Primitive::infer); dispatch allocates the outputs
/// from it, and the compiler's tracer runs it on symbolic sizes without any kernel.

/// The broadcast of two sizes when it is settled without comparing a symbol with 1: equal
/// expressions, or a literal 1 on one side (the other size, whatever it is); nullopt otherwise.
/// An unbacked size (Note [Unbacked symbols]) could not say whether it is 1.
inline std::optional<SymInt> broadcast_settled(const SymInt& a, const SymInt& b) {
  if (a.same_as(b) || (!b.is_symbolic() && b.hint() == 1)) return a;
  if (!a.is_symbolic() && a.hint() == 1) return b;
  return std::nullopt;
}

struct TensorMeta {
  SymShape sizes, strides;
  ScalarType dtype = kFloat32;
  Device device = kCPU;
  static TensorMeta of(const Tensor& t);
  /// Row-major strides for `sizes`.
  static TensorMeta contiguous(SymShape sizes, ScalarType dtype, Device device);
  bool operator==(const TensorMeta& o) const;
  std::string str() const;  // "float32[2, 3] strides [3, 1] on cpu"
};
/// A primitive's outputs' metadata (one or two outputs inline: no allocation per op). Built
/// from its elements as `return {a, b}`, which moves temporaries in (a std::initializer_list
/// would copy every shape).
struct MetaList : SmallVector<TensorMeta, 2> {
  MetaList() = default;
  template <typename... M>
  requires(sizeof...(M) >= 1 && (std::is_convertible_v<M, TensorMeta> && ...))
      MetaList(M&&... metas) {  // NOLINT: implicit, for `return {...}`
    reserve(sizeof...(M));
    (emplace_back(std::forward<M>(metas)), ...);
  }
};

/// What a vjp sees (Note [Autograd graph] in ember/autograd/node.h).
struct VjpContext {
  /// The forward inputs the primitive asked to keep (saves_input); others are undefined.
  const std::vector<Tensor>& inputs;
  /// The forward outputs it asked to keep (saves_output); others are undefined.
  const std::vector<Tensor>& outputs;
  /// Shape and dtype of every forward input, kept or not (symbolic while a joint graph is traced
  /// with dynamic shapes: a vjp builds its results from these with SymInt arithmetic).
  const std::vector<SymShape>& input_sizes;
  const std::vector<ScalarType>& input_dtypes;
  /// Gradient of each forward output; zeros where none flowed (never undefined for floating
  /// outputs).
  const std::vector<Tensor>& grads;
  /// Which outputs actually received a gradient (the others hold materialised zeros).
  const std::vector<bool>& has_grad;
  /// Which inputs need a gradient.
  const std::vector<bool>& needs_grad;

  /// Input i's sizes as integers, for a vjp written on concrete sizes: a guard on symbolic ones
  /// (the joint graph then specialises them, or raises for a declared-dynamic dim).
  std::vector<int64_t> concrete_sizes(size_t i, const char* op) const {
    return SymIntList(input_sizes[i]).concrete(op);
  }
};

class Primitive {
 public:
  virtual ~Primitive() = default;

  // ---- identity (Note [Primitive params])
  virtual PrimitiveKind kind() const = 0;
  /// The op's name as PyTorch spells it ("add", "sum", "view", ...): the display name given at
  /// construction where the public op differs from the kind's own name (floor_divide runs
  /// Binary's DivFloor), else default_name().
  const char* name() const { return display_name_ ? display_name_ : default_name(); }
  /// The name the parameters alone imply.
  virtual const char* default_name() const = 0;
  void set_display_name(const char* name) { display_name_ = name; }
  /// Visits the parameters (readers assign them; see ParamVisitor).
  virtual void visit_params(ParamVisitor& v) = 0;
  void visit_params(ParamVisitor& v) const { const_cast<Primitive*>(this)->visit_params(v); }
  /// Same kind and equal parameters (the display name does not count).
  bool equals(const Primitive& other) const;
  size_t hash() const;
  /// The parameters, "dim=1, keepdim=True" (empty without parameters); a family whose fields
  /// mean different things per op (Unary's a, b, c) names them itself.
  virtual std::string describe() const;
  /// {"kind": ..., "params": {...}} plus "name" when a display name was given.
  std::string to_json() const;
  /// A deep copy (the graph keeps it).
  virtual std::shared_ptr<const Primitive> clone() const = 0;
  /// A deep copy constructed in `buf` (`size` bytes, aligned for any scalar type), or null when
  /// it does not fit: an autograd node keeps its primitive inline, one allocation less per op.
  virtual const Primitive* clone_into(void* buf, size_t size) const = 0;

  // ---- effects (Note [Mutation and aliasing])
  /// The in-place form (add_ rather than add): output 0 is the target the caller passes, written
  /// in place, instead of a fresh tensor. Part of the identity (equals, hash, JSON "inplace").
  bool inplace() const { return inplace_; }
  void set_inplace(bool inplace = true) { inplace_ = inplace; }
  /// Which input output `i` is a view of (shares storage with): input 0 for views, none else.
  virtual std::optional<size_t> aliased_input(size_t /*output*/) const {
    return is_view() ? std::optional<size_t>(0) : std::nullopt;
  }

  /// Note [Inference]. Whether infer() is defined: dispatch then allocates the outputs when the
  /// op builder passes none (views make theirs over the input's storage). Every primitive infers
  /// except the data-dependent shapes (Nonzero, Unique, Bincount: a trace gives them unbacked
  /// symbols, Note [Unbacked symbols] in compiler/symbolic.h).
  virtual bool infers() const { return false; }
  /// The outputs' sizes, strides, dtype and device from the inputs' alone (undefined inputs
  /// arrive as metadata with no sizes).
  virtual MetaList infer(std::span<const TensorMeta> inputs) const;

  // ---- kernels (Note [Backend], dispatch/backend.h): a backend registers its kernel per kind;
  // the CPU's are the classes' `eval_cpu` members (backend/cpu/kernels.h). A kernel receives
  // `outputs` allocated (by dispatch from infer(), or by the op builder) or holding the in-place
  // target; a view primitive receives an empty vector and appends the views it creates.
  /// True when the outputs alias the first input's storage (views).
  virtual bool is_view() const { return false; }

  // ---- autograd (src/autograd)
  /// Whether vjp is defined. A primitive without one is not differentiable: using it where a
  /// gradient is needed raises NotImplementedError at backward time, naming the op.
  virtual bool has_vjp() const { return false; }
  /// Gradients of the inputs (one per input; undefined where not needed or zero). Gradients may
  /// have a broadcast shape or another dtype: the engine sums them down to the input's shape and
  /// converts them to its dtype.
  virtual std::vector<Tensor> vjp(const VjpContext& ctx) const;
  /// Which forward values vjp reads; the others are not kept alive (and may be modified in place
  /// without invalidating the graph).
  virtual bool saves_input(size_t /*i*/) const { return true; }
  virtual bool saves_output(size_t /*i*/) const { return false; }
  /// For an in-place op whose target is not among its inputs: whether it overwrites every element
  /// (copy_, fill_, random fills), so the target's previous values get no gradient. Otherwise
  /// (and unless the target is passed as an input) differentiating through the previous values
  /// raises NotImplementedError.
  virtual bool overwrites_target() const { return false; }

  // ---- decomposition (Note [Decompositions] in src/compiler/decompose.h)
  /// Whether decompose() is defined: the op written with other (core) ops. Primitives that exist
  /// for eager speed (fused normalisations, fused losses) decompose so the compiler can fuse their
  /// pieces with their neighbours; the others are core (PyTorch's core ATen opset) and do not.
  virtual bool has_decomposition() const { return false; }
  /// Computes the outputs from `inputs` with Ember ops (run under the tracer by the compiler's
  /// decomposition pass, so the ops it calls become the replacement nodes). Same outputs, dtypes
  /// and shapes as eval; defined only where has_decomposition().
  virtual std::vector<Tensor> decompose(const std::vector<Tensor>& inputs) const;

 private:
  const char* display_name_ = nullptr;
  bool inplace_ = false;
};

/// The common base of every primitive class: `class Flip : public PrimitiveOf<Flip, FlipParams,
/// PrimitiveKind::Flip>`. It stores the params and provides the kind, the params visitor and
/// clone(); the class adds default_name(), its kernels and its vjp.
template <typename Derived, typename Params, PrimitiveKind K>
class PrimitiveOf : public Primitive {
 public:
  using ParamsType = Params;
  explicit PrimitiveOf(Params p = {}) : p_(std::move(p)) {}
  PrimitiveKind kind() const final { return K; }
  using Primitive::visit_params;
  void visit_params(ParamVisitor& v) final { p_.visit(v); }
  std::shared_ptr<const Primitive> clone() const final {
    return std::make_shared<Derived>(static_cast<const Derived&>(*this));
  }
  const Primitive* clone_into(void* buf, size_t size) const final {
    if (sizeof(Derived) > size || alignof(Derived) > alignof(std::max_align_t)) return nullptr;
    return new (buf) Derived(static_cast<const Derived&>(*this));
  }
  const Params& params() const { return p_; }

 protected:
  Params p_;
};

/// Declares a primitive's shape inference (and that it has one).
#define EMBER_INFER                             \
  bool infers() const override { return true; } \
  MetaList infer(std::span<const TensorMeta> inputs) const override;

/// Declares a primitive's decomposition (and that it has one).
#define EMBER_DECOMPOSE                                    \
  bool has_decomposition() const override { return true; } \
  std::vector<Tensor> decompose(const std::vector<Tensor>& inputs) const override;

/// Declares a primitive's vjp (and that it has one).
#define EMBER_VJP                                \
  bool has_vjp() const override { return true; } \
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;

/// Makes a primitive of `kind` with default parameters (for JSON reading and tests).
std::shared_ptr<Primitive> make_primitive(PrimitiveKind kind);
/// Reads Primitive::to_json's form; malformed input raises ValueError.
std::shared_ptr<Primitive> primitive_from_json(const std::string& json);

}  // namespace ember

/// In the class of a primitive whose CPU kernel is compiled once per CPU capability (Note [CPU
/// capability], backend/cpu/capability.h): eval_cpu runs the copy chosen for this CPU, each copy
/// being one explicit specialisation of eval_cpu_for, defined with EMBER_CPU_KERNEL.
#define EMBER_CPU_DISPATCHED_KERNEL                                                     \
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const; \
  template <typename Tag>                                                               \
  void eval_cpu_for(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const
