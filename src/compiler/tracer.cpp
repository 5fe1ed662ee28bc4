// Note [Tracer]: make_fx is a dispatch mode (Note [Dispatch modes]) that records every primitive
// the traced function runs into a Graph, while the kernels run as usual ("real" tracing).
//  - A tensor is known by its TensorImpl's identity: each traced call maps its outputs to the
//    node's values; an in-place call maps its target to its own (new) value, so later reads see
//    the write. The tracer keeps every mapped tensor alive, so an address is never reused.
//  - A tensor the tracer has not seen is one of three things. A new handle on a known tensor's
//    memory with the same geometry (detach(), a shallow copy) is that tensor's value. The target
//    of an in-place call that overwrites every element (fill_, copy_, random fills) is the op
//    builder's own fresh allocation: the call node allocates it (no target). Anything else is a
//    constant the function captured (a parameter, the generator state of a random op): a
//    get_attr node, held by the GraphModule (a copy taken when first seen, unless it requires
//    grad; parameters of make_fx(module, ...) are held by reference).
//  - A tensor sharing a known tensor's memory under another geometry was made outside dispatch;
//    its relation to the known value cannot be recorded, so tracing refuses it.
#include <cstring>
#include <unordered_map>

#include "compiler/decompose.h"
#include "compiler/meta.h"
#include "compiler/symbolic.h"
#include "compiler/unbacked.h"
#include "dispatch/dispatch.h"
#include "ember/autograd.h"
#include "ember/compiler.h"
#include "ember/fx/passes.h"
#include "ember/nn/module.h"

namespace ember {

namespace {

// A copy of a captured constant's memory with the same layout. Op builders wrap temporaries
// (tensor<int64_t>({1, 2, 0}) borrows its list) whose memory is gone once the op returns; a
// leaf that requires grad (a parameter) is kept by reference instead.
Tensor snapshot(const Tensor& t) {
  const TensorImpl* impl = t.unsafeGetTensorImpl();
  const size_t nbytes = impl->storage()->nbytes();
  auto storage = std::make_shared<StorageImpl>(nbytes, t.device());
  if (nbytes > 0 && impl->storage()->data()) {
    std::memcpy(storage->data(), impl->storage()->data(), nbytes);
  }
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), t.dtype(), t.sizes(), t.strides(),
                                             impl->storage_offset()));
}

// Equal sizes, strides, offset and dtype, comparing expressions as expressions (no guard).
bool same_layout(const TensorImpl& a, const TensorImpl& b) {
  auto same = [](const std::vector<SymInt>& x, const std::vector<SymInt>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!x[i].same_as(y[i])) return false;
    }
    return true;
  };
  return a.dtype() == b.dtype() && same(a.sym_sizes(), b.sym_sizes()) &&
         same(a.sym_strides(), b.sym_strides()) &&
         a.sym_storage_offset().same_as(b.sym_storage_offset());
}

// A fake trace runs factories the function called with a meta tensor's device (arange inside
// cross_entropy) on the meta device; the graph records them on the real device, so their
// primitive's device parameter says that device too.
class MetaDeviceToReal final : public ParamVisitor {
 public:
  explicit MetaDeviceToReal(DeviceType real) : real_(real) {}
  void i64(const char*, int64_t&) override {}
  void u64(const char*, uint64_t&) override {}
  void f64(const char*, double&) override {}
  void boolean(const char*, bool&) override {}
  void scalar(const char*, Scalar&) override {}
  void enumeration(const char*, int& v, const EnumInfo& info) override {
    const EnumInfo devices = enum_info(DeviceType{});
    if (info.count == devices.count && std::strcmp(info.name(v), "meta") == 0 &&
        v == static_cast<int>(kMeta)) {
      v = static_cast<int>(real_);
    }
  }
  void text(const char*, std::string&) override {}
  void i64_list(const char*, std::vector<int64_t>&) override {}
  void sym_list(const char*, std::vector<SymInt>&) override {}
  bool optional(const char*, bool present) override { return present; }

 private:
  DeviceType real_;
};

std::shared_ptr<const Primitive> on_real_device(const Primitive& p, DeviceType real) {
  auto copy = std::const_pointer_cast<Primitive>(p.clone());
  MetaDeviceToReal fix(real);
  copy->visit_params(fix);
  return copy;
}

// Inputs whose last argument is the Philox state (Note [Functional randomness]).
bool takes_rng_state(PrimitiveKind k) {
  return k == PrimitiveKind::Random || k == PrimitiveKind::ScaledDotProductAttention ||
         k == PrimitiveKind::ScaledDotProductAttentionBackward;
}

class Tracer final : public DispatchMode {
 public:
  fx::Graph graph;
  std::map<std::string, Tensor> attrs;
  std::vector<fx::ValueRef> aliased;  // values reached through another TensorImpl too
  bool fake = false;  // TracingMode::Fake: calls on meta tensors, recorded on real_device
  Device real_device = kCPU;
  std::shared_ptr<fx::ShapeEnv> env;  // the inputs' symbols (Note [Symbolic shapes]), if any

  // An undefined input (an optional tensor passed as None) is a placeholder that nothing uses.
  // Returns the tensor the function receives (a meta twin when tracing fake).
  // `sizes`: the input's sizes with its dynamic dims as symbols (empty for a static input).
  Tensor add_input(const Tensor& t, size_t i, const std::vector<SymInt>& sizes = {}) {
    if (!sizes.empty()) {  // Note [Symbolic shapes]: a meta twin with symbolic sizes
      const TensorMeta m =
          TensorMeta::contiguous(SymShape(sizes.begin(), sizes.end()), t.dtype(), Device(kMeta));
      Tensor sym = detail::allocate_meta(m, "make_fx");
      // Autograd records on symbolic tensors too (Note [Symbolic autograd]).
      if (t.requires_grad()) sym.requires_grad_(true);
      twins_.emplace(t.unsafeGetTensorImpl(), sym);
      const fx::ValueRef v = graph.placeholder("arg" + std::to_string(i) + "_1", meta_of(sym));
      bind(t, v);
      bind(sym, v);
      return sym;
    }
    const fx::ValueRef v =
        graph.placeholder("arg" + std::to_string(i) + "_1", fx::ValueMeta::of(t));
    if (!t.defined()) return t;
    bind(t, v);
    if (!fake) return t;
    // Autograd records on meta tensors too: a fake input requiring grad lets the joint graph
    // (Note [Joint graph]) trace the backward.
    Tensor m = twin(t);
    if (t.requires_grad() && !m.requires_grad()) m.requires_grad_(true);
    return m;
  }

  // A meta tensor with `m`'s geometry (symbolic or not) as input i (Note [Decompositions]).
  Tensor add_meta_input(const fx::ValueMeta& m, size_t i) {
    fx::ValueMeta recorded = m;
    recorded.requires_grad = false;
    const fx::ValueRef v = graph.placeholder("arg" + std::to_string(i) + "_1", recorded);
    if (!m.defined()) return Tensor();
    Tensor t = detail::allocate_meta({m.sizes, m.strides, m.dtype, Device(kMeta)}, "decompose",
                                     m.storage_offset.hint());
    if (m.storage_offset.is_symbolic()) {  // a view at a dynamic position
      t.unsafeGetTensorImpl()->set_sym_geometry(
          std::span<const SymInt>(m.sizes.data(), m.sizes.size()),
          std::span<const SymInt>(m.strides.data(), m.strides.size()), m.storage_offset);
    }
    bind(t, v);
    return t;
  }

  void add_attr(const std::string& path, const Tensor& t) {
    if (!t.defined() || values_.count(t.unsafeGetTensorImpl())) return;
    bind(t, graph.get_attr(path, path, fx::ValueMeta::of(t)));
    attrs[path] = t;
  }

  // The value of an argument (None for an undefined one).
  fx::ValueRef value_of(const Tensor& t, const char* constant_prefix = "_tensor_constant") {
    if (!t.defined()) return {};
    if (auto v = known(t)) return *v;
    if (fake && t.device().is_meta() && !t.unsafeGetTensorImpl()->is_symbolic() &&
        t.numel() == 0) {  // no values: a real empty tensor
      const std::string name = "_tensor_constant" + std::to_string(constants_++);
      attrs[name] = fx::detail::allocate(meta_of(t), "make_fx");
      const fx::ValueRef v = graph.get_attr(name, name, meta_of(t));
      bind(t, v);
      return v;
    }
    EMBER_CHECK_NOT_IMPL(!fake || !t.device().is_meta(), "[make_fx] tracing_mode fake: a ",
                         meta_of(t).str(), " meta tensor made outside dispatch (such as a random ",
                         "op's generator state) has no value for the graph to hold; trace with ",
                         "TracingMode::Real");
    const std::string name = constant_prefix + std::to_string(constants_++);
    attrs[name] = t.requires_grad() ? t : snapshot(t);
    const fx::ValueRef v = graph.get_attr(name, name, meta_of(t));
    bind(t, v);
    return v;
  }

  void handle(OpCall& call, const DispatchNext& next) override {
    const Primitive& p = call.prim;
    std::vector<fx::ValueRef> args;
    args.reserve(call.inputs.size());
    for (size_t i = 0; i < call.inputs.size(); ++i) {
      const bool rng = takes_rng_state(p.kind()) && i + 1 == call.inputs.size() &&
                       call.inputs[i].defined() && call.inputs[i].dtype() == kInt64;
      args.push_back(value_of(call.inputs[i], rng ? "_rng_state" : "_tensor_constant"));
    }
    std::optional<fx::ValueRef> target;
    if (call.inplace) {
      const Tensor& t = call.outputs.at(0);
      if (auto v = known(t)) {
        target = v;
      } else if (!p.overwrites_target()) {
        target = value_of(t);  // a captured tensor, written in place as eager does
      }
    }
    // Outputs the op builder allocated (not dispatch, from the inference): the graph says so.
    const bool given = !call.outputs.empty() && !call.inplace && !call.outputs_inferred;
    // Fake: a call that involves a meta tensor runs on meta twins of the real ones (constants,
    // scalars the op builder made, its preallocated outputs); calls on real tensors alone
    // (factories, scalar conversions) run as they are.
    std::vector<Tensor> outs = call.outputs;
    const std::vector<Tensor> preallocated = call.outputs;  // the op builder may keep these
    if (fake && involves_meta(call) && fx::detail::sizes_from_data(p.kind())) {
      call.outputs = outs = fx::detail::unbacked_outputs(p, call.inputs, args.at(0),
                                                         graph.nodes().size(), env, unbacked_);
    } else if (fake && involves_meta(call)) {
      std::vector<Tensor> ins;
      for (const Tensor& t : call.inputs) ins.push_back(twin(t));
      for (Tensor& t : outs) t = twin(t);
      OpCall sub{call.prim, ins, outs, call.inplace, call.outputs_inferred};
      next(sub);
      for (size_t k = call.inplace ? 1 : 0; k < outs.size(); ++k) {
        if (k < call.outputs.size()) {
          call.outputs[k] = outs[k];
        } else {
          call.outputs.push_back(outs[k]);
        }
      }
    } else {
      next(call);
      outs = call.outputs;
    }
    std::vector<fx::ValueMeta> metas;
    for (const Tensor& o : call.outputs) metas.push_back(meta_of(o));
    const int node = graph.call(p.name(), fake ? on_real_device(p, real_device.type()) : p.clone(),
                                std::move(args), target, given, std::move(metas));
    for (size_t k = 0; k < call.outputs.size(); ++k) {
      bind(call.outputs[k], {node, static_cast<int>(k)});
      if (!outs[k].is_same(call.outputs[k])) bind(outs[k], {node, static_cast<int>(k)});
      // Fake: a real output the op builder preallocated (gelu's backward) and reads afterwards
      // stands for the call's value too, not for a constant.
      if (k < preallocated.size() && preallocated[k].defined() &&
          !preallocated[k].is_same(call.outputs[k])) {
        bind(preallocated[k], {node, static_cast<int>(k)});
      }
      produced_.push_back({{node, static_cast<int>(k)}, call.outputs[k]});
    }
  }

  // The function returned `outputs`: the graph's output node. Autograd marks outputs after the
  // modes below it ran, so requires_grad is read now.
  void close(const std::vector<Tensor>& outputs, const char* op) {
    std::vector<fx::ValueRef> results;
    for (size_t i = 0; i < outputs.size(); ++i) {
      EMBER_CHECK_VALUE(outputs[i].defined(), "[", op, "] output ", i,
                        " of the function is undefined");
      results.push_back(value_of(outputs[i]));
    }
    for (const auto& [ref, t] : produced_) {
      graph.mutable_nodes()[ref.node].outputs[ref.output].requires_grad = t.requires_grad();
    }
    graph.output(std::move(results));
  }

 private:
  struct Entry {
    fx::ValueRef ref;
    Tensor keep;  // keeps the TensorImpl (and so its address) alive while tracing
  };

  // What the graph records: a fake trace's meta tensors stand for tensors on real_device.
  fx::ValueMeta meta_of(const Tensor& t) const {
    fx::ValueMeta m = fx::ValueMeta::of(t);
    if (fake && t.defined() && t.device().is_meta()) m.device = real_device;
    return m;
  }

  bool involves_meta(const OpCall& call) const {
    // A call with symbolic parameters (a real bias expanded to [s0, 8]) has a symbolic result.
    if (fake && fx::detail::has_symbolic_params(call.prim)) return true;
    for (const Tensor& t : call.inputs) {
      if (t.defined() && t.device().is_meta()) return true;
    }
    for (const Tensor& t : call.outputs) {
      if (t.defined() && t.device().is_meta()) return true;
    }
    return false;
  }

  // A meta tensor with t's sizes, strides, offset and dtype, one per real tensor, standing for
  // the same value.
  Tensor twin(const Tensor& t) {
    if (!t.defined() || t.device().is_meta()) return t;
    auto it = twins_.find(t.unsafeGetTensorImpl());
    if (it != twins_.end()) return it->second;
    const TensorImpl* impl = t.unsafeGetTensorImpl();
    auto storage = std::make_shared<StorageImpl>(impl->storage()->nbytes(), Device(kMeta));
    Tensor m(std::make_shared<TensorImpl>(std::move(storage), t.dtype(), t.sizes(), t.strides(),
                                          impl->storage_offset()));
    twins_.emplace(impl, m);
    if (auto v = values_.find(impl); v != values_.end()) bind(m, v->second.ref);
    return m;
  }

  void bind(const Tensor& t, fx::ValueRef v) {
    const TensorImpl* impl = t.unsafeGetTensorImpl();
    if (!values_.count(impl)) by_storage_[impl->storage().get()].push_back(impl);
    values_[impl] = {v, t};
  }

  std::optional<fx::ValueRef> known(const Tensor& t) {
    const TensorImpl* impl = t.unsafeGetTensorImpl();
    if (auto it = values_.find(impl); it != values_.end()) return it->second.ref;
    auto same = by_storage_.find(impl->storage().get());
    if (same == by_storage_.end()) return std::nullopt;
    for (const TensorImpl* other : same->second) {
      if (same_layout(*other, *impl)) {
        const fx::ValueRef v = values_.at(other).ref;
        bind(t, v);
        aliased.push_back(v);  // a second handle: a write through one is seen by the other
        return v;
      }
    }
    const fx::ValueRef v = values_.at(same->second.front()).ref;
    EMBER_THROW(NotImplementedError, "[make_fx] a tensor ", fx::ValueMeta::of(t).str(),
                " shares the memory of traced value '", graph.value_name(v), "' (",
                graph.meta(v).str(), ") under another geometry, made without dispatch; ",
                "make it with a view op so that the tracer can record it");
  }

  std::unordered_map<const TensorImpl*, Entry> values_;
  std::unordered_map<const StorageImpl*, std::vector<const TensorImpl*>> by_storage_;
  std::vector<std::pair<fx::ValueRef, Tensor>> produced_;
  std::unordered_map<const TensorImpl*, Tensor> twins_;
  fx::detail::UnbackedMemo unbacked_;  // Note [Unbacked symbols]
  int constants_ = 0;
};

fx::GraphModule trace(const TracedFn& fn, const std::vector<Tensor>& inputs,
                      const TraceOptions& options, const nn::Module* module) {
  const std::vector<std::vector<SymInt>> dynamic = fx::symbolic_sizes(options.dynamic, inputs);
  EMBER_CHECK_VALUE(static_cast<bool>(fn), "[make_fx] the function is empty");
  Tracer tracer;
  tracer.fake = options.mode == TracingMode::Fake || !dynamic.empty();
  for (const auto& sizes : dynamic) {
    for (const SymInt& s : sizes) {
      if (!tracer.env) tracer.env = fx::env_of(s);
    }
  }
  std::vector<Tensor> traced_inputs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].defined()) {
      EMBER_CHECK_NOT_IMPL(!tracer.fake || inputs[i].device().is_cpu(),
                           "[make_fx] tracing_mode fake traces CPU inputs only, got input ", i,
                           " on ", inputs[i].device().str());
    }
    traced_inputs.push_back(
        tracer.add_input(inputs[i], i, dynamic.empty() ? std::vector<SymInt>{} : dynamic[i]));
  }
  if (module) {
    for (const auto& item : module->named_parameters()) tracer.add_attr(item.key(), item.value());
    for (const auto& item : module->named_buffers()) tracer.add_attr(item.key(), item.value());
  }
  std::vector<Tensor> outputs;
  {
    DispatchModeGuard guard(tracer);
    outputs = fn(traced_inputs);
  }
  tracer.close(outputs, "make_fx");
  if (options.functionalize) fx::functionalize(tracer.graph, tracer.aliased);
  fx::GraphModule gm(std::move(tracer.graph), std::move(tracer.attrs));
  if (options.passes) return fx::run_passes(gm);
  if (options.decompose) {
    return fx::PassManager()
        .add({"decompose", [](fx::Graph& g, fx::Attrs& a) { return fx::decompose(g, a); }})
        .run(gm);
  }
  return gm;
}

}  // namespace

namespace fx::detail {

GraphModule trace_on_meta(const TracedFn& fn, const std::vector<ValueMeta>& inputs) {
  Tracer tracer;
  tracer.fake = true;
  for (const ValueMeta& m : inputs) {
    if (m.defined()) {
      tracer.real_device = m.device;
      break;
    }
  }
  std::vector<Tensor> traced_inputs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    traced_inputs.push_back(tracer.add_meta_input(inputs[i], i));
  }
  std::vector<Tensor> outputs;
  {
    NoGradGuard no_grad;
    DispatchModeGuard guard(tracer);
    outputs = fn(traced_inputs);
  }
  tracer.close(outputs, "decompose");
  functionalize(tracer.graph, tracer.aliased);
  return GraphModule(std::move(tracer.graph), std::move(tracer.attrs));
}

}  // namespace fx::detail

fx::GraphModule make_fx(const TracedFn& fn, const std::vector<Tensor>& example_inputs,
                        const TraceOptions& options) {
  return trace(fn, example_inputs, options, nullptr);
}

fx::GraphModule make_fx(const TracedTensorFn& fn, const std::vector<Tensor>& example_inputs,
                        const TraceOptions& options) {
  EMBER_CHECK_VALUE(static_cast<bool>(fn), "[make_fx] the function is empty");
  return trace([&](const std::vector<Tensor>& xs) { return std::vector<Tensor>{fn(xs)}; },
               example_inputs, options, nullptr);
}

fx::GraphModule make_fx(const nn::Module& module, const TracedFn& fn,
                        const std::vector<Tensor>& example_inputs, const TraceOptions& options) {
  return trace(fn, example_inputs, options, &module);
}

}  // namespace ember
