// Recording ops into the autograd graph (called from dispatch) and the node kinds it creates.
//
// Note [In-place on views]: an in-place op on a view rewrites its base's history. The base gets
// a CopySlices node: the base's gradient passes through unchanged outside the view, and inside
// the view it goes through the op's own backward. The view's grad_fn is then regenerated from the
// base (lazily, whenever the shared version counter says the base changed), as PyTorch does.
//
// Note [Symbolic autograd]: autograd records on tensors with symbolic sizes too (a joint forward
// + backward graph traced with dynamic shapes, Note [Joint graph]). What a node keeps of its
// inputs' and outputs' shapes is SymInts (OutputMeta::sizes, VjpContext::input_sizes), so the
// vjps, zeros of a missing gradient and the final sum_to build symbolic results without guards.
// Views whose layout is symbolic keep no geometry (it is computed on concrete strides): an
// in-place op on one that needs gradients, or as_strided's backward, raises NotImplementedError.
#include <algorithm>
#include <cstddef>
#include <sstream>

#include "autograd/functions.h"
#include "ember/autograd.h"
#include "ember/core/small_vector.h"
#include "ember/ops/factory.h"
#include "ops/util.h"

namespace ember {

std::vector<Tensor> Primitive::vjp(const VjpContext&) const {
  EMBER_THROW(NotImplementedError, "[", name(), "] the derivative for '", name(),
              "' is not implemented.");
}

namespace autograd {
namespace {

// A new handle on t's memory and version counter, without autograd state.
Tensor alias_of(const Tensor& t) {
  const TensorImpl& src = *t.impl();
  std::shared_ptr<TensorImpl> impl;
  if (const SymGeometry* g = src.sym_geometry()) {
    impl = std::make_shared<TensorImpl>(src.storage(), t.dtype(), g->sizes, g->strides,
                                        g->storage_offset);
  } else {
    impl = std::make_shared<TensorImpl>(src.storage(), t.dtype(), src.sizes(), src.strides(),
                                        src.storage_offset());
  }
  impl->share_version_counter(t.impl()->version_counter());
  return Tensor(std::move(impl));
}

std::string type_description(const Tensor& t) {
  return "torch." + std::string(scalar_type_name(t.dtype())) + "Tensor " +
         ops::shape_str(t.sizes());
}

bool differentiable_dtype(ScalarType t) { return is_floating_point(t); }

// Either geometry is symbolic: a view relation Ember does not compute (Note [Symbolic autograd]).
bool symbolic_layout(const Tensor& a, const Tensor& b) {
  return a.unsafeGetTensorImpl()->is_symbolic() || b.unsafeGetTensorImpl()->is_symbolic();
}

// One recorded primitive: keeps a copy of the primitive and the values its vjp reads.
class PrimitiveNode : public Node {
 public:
  // The name is made only when asked (Node::name): the op's name is a static string, as the
  // primitive's display name must be.
  PrimitiveNode(const Primitive& prim, const std::vector<Tensor>& inputs)
      : op_(prim.name()),
        overload_(backward_overload(prim, inputs)) {
    if (prim.has_vjp()) {
      prim_ = prim.clone_into(inline_prim_, sizeof(inline_prim_));
      if (!prim_) {
        owned_prim_ = prim.clone();
        prim_ = owned_prim_.get();
      }
    }
    for (const auto& t : inputs) {
      const bool defined = t.defined();
      const SymGeometry* g = defined ? t.unsafeGetTensorImpl()->sym_geometry() : nullptr;
      if (g) [[unlikely]] {
        sizes_flat_.append(g->sizes.begin(), g->sizes.end());
      } else if (defined) {
        sizes_flat_.append(t.sizes().begin(), t.sizes().end());
      }
      input_ranks_.push_back(defined ? static_cast<int>(t.dim()) : 0);
      input_dtypes_.push_back(defined ? t.dtype() : kFloat32);
    }
  }
  ~PrimitiveNode() override {
    if (prim_ && !owned_prim_) prim_->~Primitive();
  }
  PrimitiveNode(const PrimitiveNode&) = delete;
  PrimitiveNode& operator=(const PrimitiveNode&) = delete;
  std::string name() const override { return backward_name(op_, overload_); }

  void save(std::vector<SavedVariable> inputs, std::vector<SavedVariable> outputs) {
    saved_inputs_ = std::move(inputs);
    saved_outputs_ = std::move(outputs);
    for (const auto& v : saved_inputs_) has_saved_ |= v.defined();
    for (const auto& v : saved_outputs_) has_saved_ |= v.defined();
  }

  /// The op writes into a target that is not one of its inputs and keeps some of its previous
  /// values: that dependence (the last next edge) has no derivative yet.
  void set_unknown_target_grad() { unknown_target_grad_ = true; }

  void release_variables() override {
    if (!has_saved_) return;
    for (auto& v : saved_inputs_) v.reset();
    for (auto& v : saved_outputs_) v.reset();
    released_ = true;
  }

  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    const auto& edges = next_edges();
    std::vector<bool> needs(edges.size());
    bool any = false;
    for (size_t i = 0; i < edges.size(); ++i) any |= (needs[i] = edges[i].is_valid());
    if (!any) return std::vector<Tensor>(edges.size());
    EMBER_CHECK_NOT_IMPL(!unknown_target_grad_ || !edges.back().is_valid(), "[", op_,
                         "] the derivative for '", op_,
                         "' with respect to the tensor it "
                         "modifies in place is not implemented.");
    EMBER_CHECK_NOT_IMPL(prim_ != nullptr, "[", op_, "] the derivative for '", op_,
                         "' is not implemented.");
    EMBER_CHECK(!released_,
                "[autograd] Trying to backward through the graph a second time (or "
                "directly access saved tensors after they have already been freed). Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved tensors after calling "
                "backward.");
    auto self = shared_from_this();
    // The inputs' sizes and dtypes, kept inline while recording, as VjpContext reads them.
    std::vector<SymShape> input_sizes(input_ranks_.size());
    const SymInt* dims = sizes_flat_.begin();
    for (size_t i = 0; i < input_sizes.size(); ++i) {
      input_sizes[i].append(dims, dims + input_ranks_[i]);
      dims += input_ranks_[i];
    }
    const std::vector<ScalarType> input_dtypes(input_dtypes_.begin(), input_dtypes_.end());
    // Nothing saved: none recorded (one vector less per op), one undefined tensor per value.
    std::vector<Tensor> in(saved_inputs_.empty() ? input_sizes.size() : 0);
    std::vector<Tensor> out(saved_outputs_.empty() ? output_meta().size() : 0);
    const std::string node_name = name();
    for (const auto& v : saved_inputs_) in.push_back(v.unpack(self, node_name));
    for (const auto& v : saved_outputs_) out.push_back(v.unpack(self, node_name));
    std::vector<bool> has_grad(grads.size());
    for (size_t i = 0; i < grads.size(); ++i) {
      const auto& m = output_meta()[i];
      has_grad[i] = grads[i].defined();
      if (!grads[i].defined() && differentiable_dtype(m.dtype)) {
        grads[i] = zeros(m.sizes, TensorOptions().dtype(m.dtype));
      }
    }
    VjpContext ctx{in, out, input_sizes, input_dtypes, grads, has_grad, needs};
    std::vector<Tensor> res = prim_->vjp(ctx);
    res.resize(edges.size());
    for (size_t i = 0; i < res.size(); ++i) {
      if (!needs[i] || !res[i].defined()) {
        res[i] = Tensor();
        continue;
      }
      res[i] = sum_to(res[i], input_sizes[i]);
      if (res[i].dtype() != input_dtypes[i]) res[i] = res[i].to(input_dtypes[i]);
    }
    return res;
  }

 private:
  // The primitive: a copy in inline_prim_ (most fit), else owned_prim_; null without a vjp.
  alignas(std::max_align_t) std::byte inline_prim_[128];
  std::shared_ptr<const Primitive> owned_prim_;
  const Primitive* prim_ = nullptr;
  const char* op_;
  int overload_;
  // The inputs' sizes one after another, each input's rank, and dtypes: no allocation per op.
  SmallVector<SymInt, 8> sizes_flat_;
  SmallVector<int, 4> input_ranks_;
  SmallVector<ScalarType, 4> input_dtypes_;
  std::vector<SavedVariable> saved_inputs_, saved_outputs_;
  bool has_saved_ = false, released_ = false, unknown_target_grad_ = false;
};

// The backward of a view: the view's gradient written into its place in the base.
class ViewNode : public Node {
 public:
  ViewNode(std::string name, ViewGeometry geom, std::vector<int64_t> base_sizes)
      : name_(std::move(name)), geom_(std::move(geom)), base_sizes_(std::move(base_sizes)) {}
  std::string name() const override { return name_; }
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    if (!grads[0].defined()) return {Tensor()};
    return {view_backward(grads[0], geom_, base_sizes_)};
  }

 private:
  std::string name_;
  ViewGeometry geom_;
  std::vector<int64_t> base_sizes_;
};

// A view that Ember cannot invert: differentiating through it raises.
class UnsupportedViewNode : public Node {
 public:
  explicit UnsupportedViewNode(std::string op) : op_(std::move(op)) {}
  std::string name() const override { return backward_name(op_.c_str()); }
  std::vector<Tensor> apply(std::vector<Tensor>&&) override {
    EMBER_THROW(NotImplementedError, "[", op_,
                "] the derivative of this view is not implemented "
                "for its input's memory layout (an overlapping or interleaved base); call "
                ".contiguous() on the input first");
  }

 private:
  std::string op_;
};

// Note [In-place on views]. next edges: [0] the base's previous history, then the op's inputs.
class CopySlices : public Node {
 public:
  CopySlices(ViewGeometry geom, std::shared_ptr<Node> op, int target_input)
      : geom_(std::move(geom)), op_(std::move(op)), target_input_(target_input) {}
  std::string name() const override { return "CopySlices"; }
  void release_variables() override { op_->release_variables(); }
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    std::vector<Tensor> out(next_edges().size());
    if (!grads[0].defined()) return out;
    Tensor result = grads[0].clone();
    Tensor region =
        result.as_strided(SymIntList(geom_.sizes), SymIntList(geom_.strides), SymInt(geom_.offset));
    std::vector<Tensor> op_grads = op_->apply({region.clone()});
    if (target_input_ >= 0 && op_grads[target_input_].defined()) {
      region.copy_(op_grads[target_input_]);
    } else {
      region.zero_();
    }
    out[0] = result;
    for (size_t i = 0; i < op_grads.size(); ++i) {
      if (static_cast<int>(i) != target_input_) out[i + 1] = op_grads[i];
    }
    return out;
  }

 private:
  ViewGeometry geom_;
  std::shared_ptr<Node> op_;
  int target_input_;
};

// The node of a view. Every view primitive has its own vjp (Note [Views]) except as_strided,
// which is defined on memory: its gradient is placed through the view's geometry relative to
// its input (Note [View geometry]), which exists when the input's memory does not overlap.
std::shared_ptr<Node> make_view_node(const Primitive& prim, const std::vector<Tensor>& inputs,
                                     const Tensor& out) {
  if (prim.kind() != PrimitiveKind::AsStrided) return std::make_shared<PrimitiveNode>(prim, inputs);
  const Tensor& in = inputs[0];
  if (auto geom = symbolic_layout(in, out) ? std::nullopt : relative_geometry(in, out)) {
    return std::make_shared<ViewNode>(backward_name(prim.name()), *geom, in.sizes());
  }
  return std::make_shared<UnsupportedViewNode>(prim.name());
}

// No other tensor addresses t's storage: its own version counter's hold on the storage (Note
// [Version counters] in tensor_impl.h) does not count.
bool owns_storage_alone(const TensorImpl& t) {
  const bool counter_in_storage = t.version_counter().get() == &t.storage()->version_counter();
  return t.storage().use_count() == (counter_in_storage ? 2 : 1);
}

// Whether `sizes` are t's sizes (a concrete tensor's compared in place, without a shape).
bool has_sizes(const SymShape& sizes, const Tensor& t) {
  const TensorImpl* impl = t.unsafeGetTensorImpl();
  if (impl->sym_geometry()) [[unlikely]]
    return same_as(sizes, shape_of(t));
  const std::vector<int64_t>& s = impl->sizes();
  return sizes.size() == s.size() &&
         std::equal(s.begin(), s.end(), sizes.begin(), [](int64_t a, const SymInt& b) {
           return !b.is_symbolic() && b.guard_int() == a;
         });
}

}  // namespace

void set_history(const Tensor& t, std::shared_ptr<Node> fn, uint32_t output_nr) {
  auto& m = meta(t);
  m.output_nr = output_nr;
  auto& metas = fn->mutable_output_meta();
  if (metas.size() <= output_nr) metas.resize(output_nr + 1);
  OutputMeta& om = metas[output_nr];
  if (om.dtype != t.dtype() || !has_sizes(om.sizes, t)) om = OutputMeta::of(t);
  m.grad_fn = std::move(fn);
  m.attr_version = t._version();
}

namespace {

bool is_inplace_leaf_violation(const Tensor& target) {
  auto* m = meta_or_null(target);
  return m && m->requires_grad && !m->grad_fn && !m->view_base.defined();
}

// In-place ops: PyTorch's checks, before anything is written.
void check_inplace(const Tensor& target, const char* op) {
  EMBER_CHECK(!target.is_inference() || is_inference_mode_enabled(), "[", op,
              "] Inplace update to inference tensor outside InferenceMode is not allowed. You can "
              "make a clone to get a normal tensor before doing inplace update.");
  if (!is_grad_enabled()) return;
  auto* m = meta_or_null(target);
  if (!m) return;
  EMBER_CHECK(!is_inplace_leaf_violation(target), "[", op,
              "] a leaf Variable that requires grad is being used in an in-place operation.");
  EMBER_CHECK(!m->view_base.defined() || !is_inplace_leaf_violation(m->view_base), "[", op,
              "] a view of a leaf Variable that requires grad is being used in an in-place "
              "operation.");
}

bool requires_grad_now(const Tensor& t) {
  return t.defined() && meta_or_null(t) && differentiable_dtype(t.dtype()) && t.requires_grad();
}

// Views keep their base (even without gradients) so that a later in-place op that brings
// gradients in can rewrite the base's history.
void record_view(const OpCall& call) {
  const Tensor& in = call.inputs[0];
  const Tensor& out = call.outputs[0];
  if (out.dtype() != in.dtype()) return;  // view(dtype) reinterprets bits: not differentiable
  auto* im = meta_or_null(in);
  const Tensor& base = im && im->view_base.defined() ? im->view_base : in;
  auto& om = meta(out);
  om.view_base = base;
  if (!symbolic_layout(base, out)) om.view_geometry = relative_geometry(base, out);
  om.attr_version = out._version();
  if (!requires_grad_now(in)) return;
  auto fn = make_view_node(call.prim, call.inputs, out);
  fn->mutable_next_edges().push_back(gradient_edge(in));
  set_history(out, fn, 0);
}

}  // namespace

SavedVariable::SavedVariable(const Tensor& t, std::optional<uint32_t> output_nr)
    : output_nr_(output_nr) {
  if (!t.defined()) return;
  EMBER_CHECK(!t.is_inference(),
              "[autograd] Inference tensors cannot be saved for backward. To "
              "work around you can make a clone to get a normal tensor and use it in autograd.");
  data_ = output_nr ? alias_of(t) : t;
  version_ = t._version();
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& owner,
                             const std::string& owner_name) const {
  if (!data_.defined()) return {};
  if (data_._version() != version_) {
    std::ostringstream msg;
    msg << "[autograd] one of the variables needed for gradient computation has been modified "
           "by an inplace operation: ["
        << type_description(data_) << "]";
    if (output_nr_) msg << ", which is output " << *output_nr_ << " of " << owner_name << ",";
    msg << " is at version " << data_._version() << "; expected version " << version_
        << " instead. Hint: the backtrace further above can show the operation that failed to "
           "compute its gradient.";
    throw RuntimeError(msg.str());
  }
  if (!output_nr_ || !is_grad_enabled()) return data_;
  // create_graph: the saved output must lead back to the node that made it.
  Tensor t = alias_of(data_);
  auto& m = meta(t);
  m.grad_fn = owner;
  m.output_nr = *output_nr_;
  return t;
}

std::vector<Tensor> AccumulateGrad::apply(std::vector<Tensor>&& grads) {
  Tensor g = std::move(grads[0]);
  auto& m = meta(variable_);
  for (const auto& [id, hook] : m.leaf_hooks) {
    if (!g.defined()) break;
    Tensor r = hook(g);
    if (r.defined()) g = r;
  }
  if (!g.defined()) return {};
  std::unique_lock<std::mutex> lock(m.mutex);
  if (!m.grad.defined()) {
    if (is_grad_enabled()) {
      m.grad = g;  // create_graph: keep the gradient's own history
    } else {
      const bool sole_owner = g.impl().use_count() == 1 && owns_storage_alone(*g.impl()) &&
                              g.is_contiguous() && !meta_or_null(g) && g.storage_offset() == 0 &&
                              static_cast<size_t>(g.nbytes()) == g.impl()->storage()->nbytes();
      m.grad = sole_owner ? g : g.clone();
    }
  } else if (is_grad_enabled()) {
    m.grad = m.grad + g;
  } else {
    m.grad.add_(g);
  }
  lock.unlock();  // hooks may run autograd themselves
  for (const auto& [id, hook] : m.post_accumulate_hooks) hook(variable_);
  return {};
}

Edge gradient_edge(const Tensor& t) {
  auto* m = meta_or_null(t);
  if (!m) return {};
  if (const auto& fn = grad_fn_of(t)) return {fn, m->output_nr};
  if (!m->requires_grad) return {};
  std::lock_guard<std::mutex> lock(m->mutex);
  auto acc = m->grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t);
    acc->mutable_output_meta().push_back(OutputMeta::of(t));
    m->grad_accumulator = acc;
  }
  return {acc, 0};
}

const std::shared_ptr<Node>& grad_fn_of(const Tensor& t) {
  auto& m = meta(t);
  if (m.view_base.defined() && m.attr_version != t._version()) {
    // The base (or another view of it) changed in place since grad_fn was set: regenerate it.
    m.attr_version = t._version();
    Edge base_edge = gradient_edge(m.view_base);
    if (base_edge.is_valid()) {
      auto fn = m.view_geometry ? std::shared_ptr<Node>(std::make_shared<ViewNode>(
                                      "AsStridedBackward0", *m.view_geometry, m.view_base.sizes()))
                                : std::make_shared<UnsupportedViewNode>("as_strided");
      fn->mutable_next_edges().push_back(base_edge);
      fn->mutable_output_meta().push_back(OutputMeta::of(t));
      m.grad_fn = std::move(fn);
      m.output_nr = 0;
    } else {
      m.grad_fn.reset();
    }
  }
  return m.grad_fn;
}

void record(OpCall& call, void (*run)(OpCall&)) {
  const Primitive& prim = call.prim;
  const bool grad_mode = is_grad_enabled();
  if (call.inplace) check_inplace(call.outputs[0], prim.name());
  if (!grad_mode) return run(call);
  if (prim.is_view()) {
    run(call);
    if (!call.outputs.empty() && call.outputs[0].defined()) record_view(call);
    return;
  }
  const Tensor target = call.inplace ? call.outputs[0] : Tensor();
  auto* target_meta = target.defined() ? meta_or_null(target) : nullptr;
  const bool target_is_view = target_meta && target_meta->view_base.defined();
  bool needed = target.defined() && (requires_grad_now(target) ||
                                     (target_is_view && requires_grad_now(target_meta->view_base)));
  for (const auto& t : call.inputs) needed |= requires_grad_now(t);
  if (!needed) {
    run(call);
    // An in-place op that brings no gradient leaves the target's old history stale; the target
    // no longer depends on it.
    if (target_meta && target_meta->grad_fn && !target_is_view) target_meta->grad_fn.reset();
    return;
  }

  auto node = std::make_shared<PrimitiveNode>(prim, call.inputs);
  int target_input = -1;
  // Saved values: vectors only where something is saved (PrimitiveNode::apply).
  std::vector<SavedVariable> saved_in;
  node->mutable_next_edges().reserve(call.inputs.size() + (target.defined() ? 1 : 0));
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    const Tensor& t = call.inputs[i];
    if (target.defined() && t.defined() && t.is_same(target)) target_input = static_cast<int>(i);
    node->mutable_next_edges().push_back(requires_grad_now(t) ? gradient_edge(t) : Edge{});
    if (!t.defined() || !prim.saves_input(i)) continue;
    if (saved_in.empty()) saved_in.resize(call.inputs.size());
    // A value the op overwrites is saved as it was before.
    saved_in[i] =
        SavedVariable(target.defined() && t.is_alias_of(target) ? t.clone() : t, std::nullopt);
  }
  if (target.defined() && target_input < 0 && !prim.overwrites_target()) {
    node->mutable_next_edges().push_back(requires_grad_now(target) ? gradient_edge(target)
                                                                   : Edge{});
    node->set_unknown_target_grad();
  }
  run(call);
  std::vector<SavedVariable> saved_out;
  for (size_t i = 0; i < call.outputs.size(); ++i) {
    if (!prim.saves_output(i)) continue;
    if (saved_out.empty()) saved_out.resize(call.outputs.size());
    saved_out[i] = SavedVariable(call.outputs[i], static_cast<uint32_t>(i));
  }
  node->save(std::move(saved_in), std::move(saved_out));
  node->mutable_output_meta().reserve(call.outputs.size());
  for (size_t i = 0; i < call.outputs.size(); ++i) {
    const Tensor& out = call.outputs[i];
    node->mutable_output_meta().push_back(OutputMeta::of(out));
  }

  if (!target.defined()) {
    for (size_t i = 0; i < call.outputs.size(); ++i) {
      if (differentiable_dtype(call.outputs[i].dtype())) {
        set_history(call.outputs[i], node, static_cast<uint32_t>(i));
      }
    }
    return;
  }
  if (!target_is_view) {
    set_history(target, node, 0);
    return;
  }
  // Note [In-place on views].
  const Tensor base = target_meta->view_base;
  EMBER_CHECK_NOT_IMPL(!symbolic_layout(base, target), "[", prim.name(),
                       "] an in-place operation on a view with dynamic shapes that needs "
                       "gradients is not supported yet; apply the operation out of place");
  EMBER_CHECK_NOT_IMPL(target_meta->view_geometry.has_value(), "[", prim.name(),
                       "] an in-place operation on this view needs gradients, but the view's "
                       "base has a memory layout Ember cannot invert; call .contiguous() first");
  auto cs = std::make_shared<CopySlices>(*target_meta->view_geometry, node, target_input);
  cs->mutable_next_edges().push_back(gradient_edge(base));
  for (size_t i = 0; i < node->next_edges().size(); ++i) {
    cs->mutable_next_edges().push_back(static_cast<int>(i) == target_input ? Edge{}
                                                                           : node->next_edges()[i]);
  }
  set_history(base, cs, 0);
  // The view's own grad_fn is regenerated from the base on next use.
  target_meta->attr_version = target._version() - 1;
}

}  // namespace autograd
}  // namespace ember
