// Note [Compile guards] (guards.h).
#include "compiler/guards.h"

#include <map>

#include "compiler/symbolic.h"
#include "ember/autograd.h"
#include "ember/nn/module.h"

namespace ember::compiler {

namespace {

const char* on_off(bool b) { return b ? "true" : "false"; }

template <typename List>
std::string list_str(const List& xs) {
  std::string s = "[";
  for (size_t i = 0; i < xs.size(); ++i) {
    if (i) s += ", ";
    s += xs[i].str();
  }
  return s + "]";
}

std::string ints_str(const std::vector<int64_t>& xs) {
  std::string s = "[";
  for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + std::to_string(xs[i]);
  return s + "]";
}

// dtype, device, rank and requires_grad of one tensor against what was traced; "" when equal.
std::string check_kind(const std::string& what, const fx::ValueMeta& want, bool want_grad,
                       const Tensor& t) {
  if (!want.defined()) return t.defined() ? what + ": expected None, got a tensor" : "";
  if (!t.defined()) return what + ": expected a tensor, got None";
  if (t.dtype() != want.dtype) {
    return what + ": dtype changed from " + dtype_name(want.dtype) + " to " + dtype_name(t.dtype());
  }
  if (t.device() != want.device) {
    return what + ": device changed from " + want.device.str() + " to " + t.device().str();
  }
  if (t.dim() != static_cast<int64_t>(want.sizes.size())) {
    return what + ": rank changed from " + std::to_string(want.sizes.size()) + " to " +
           std::to_string(t.dim());
  }
  if (t.requires_grad() != want_grad) {
    return what + ": requires_grad changed from " + on_off(want_grad) + " to " +
           on_off(t.requires_grad());
  }
  return "";
}

struct Bound {
  int64_t value;
  std::string where;
};

// The sizes of input `i`: a static dim must be equal; a dynamic one (a*s + b) gives its symbol a
// value in [runtime_min, max], equal wherever the symbol appears.
std::string check_sizes(size_t i, const fx::ValueMeta& want, const Tensor& t,
                        fx::SymbolValues& values, std::map<std::string, Bound>& bound) {
  for (size_t d = 0; d < want.sizes.size(); ++d) {
    const std::string where = "input " + std::to_string(i) + " dim " + std::to_string(d);
    const int64_t size = t.size(static_cast<int64_t>(d));
    const SymInt& s = want.sizes[d];
    if (!s.is_symbolic()) {
      if (size != s.hint()) {
        return where + ": size " + std::to_string(size) + ", expected " + s.str();
      }
      continue;
    }
    const auto affine = fx::as_affine(s);
    if (!affine) continue;  // evaluated with the strides below
    const fx::SymbolInfo* si = fx::env_of(s)->find(affine->symbol);
    if ((size - affine->b) % affine->a != 0) {
      return where + ": size " + std::to_string(size) + " is not of the form " + s.str() + " (" +
             si->dim + " = " + si->name + ")";
    }
    const int64_t value = (size - affine->b) / affine->a;
    if (value < si->runtime_min || value > si->max) {
      return where + ": size " + std::to_string(size) + ", so " + si->dim + " is " +
             std::to_string(value) + ", outside its range [" + std::to_string(si->runtime_min) +
             ", " + std::to_string(si->max) + "]";
    }
    auto [it, fresh] = bound.try_emplace(affine->symbol, Bound{value, where});
    if (!fresh && it->second.value != value) {
      return where + ": size " + std::to_string(size) + ", so " + si->dim + " is " +
             std::to_string(value) + ", but it is " + std::to_string(it->second.value) + " in " +
             it->second.where + " (the graph was traced with them equal)";
    }
    values[affine->symbol] = value;
  }
  return "";
}

std::string check_layout(const std::string& what, const fx::ValueMeta& want, const Tensor& t,
                         const fx::SymbolValues& values) {
  for (size_t d = 0; d < want.sizes.size(); ++d) {
    const bool size_ok = fx::evaluate(want.sizes[d], values, "compile") == t.size(d);
    const bool stride_ok = fx::evaluate(want.strides[d], values, "compile") == t.stride(d);
    if (!size_ok || !stride_ok) {
      return what + ": sizes " + ints_str(t.sizes()) + " and strides " + ints_str(t.strides()) +
             ", expected " + list_str(want.sizes) + " and " + list_str(want.strides);
    }
  }
  if (t.storage_offset() != fx::evaluate(want.storage_offset, values, "compile")) {
    return what + ": storage offset " + std::to_string(t.storage_offset()) + ", expected " +
           want.storage_offset.str();
  }
  return "";
}

// The lifted tensors still have the metadata the graph was traced with.
std::string check_held(const Guards::Held& h) {
  const std::string what = "'" + h.name + "'";
  std::string r = check_kind(what, h.meta, h.meta.requires_grad, h.tensor);
  if (!r.empty() || !h.tensor.defined()) return r;
  return check_layout(what, h.meta, h.tensor, {});
}

}  // namespace

std::vector<std::pair<std::string, Tensor>> lifted_tensors(const nn::Module& module) {
  std::vector<std::pair<std::string, Tensor>> out;
  for (const auto& item : module.named_parameters()) out.emplace_back(item.key(), item.value());
  for (const auto& item : module.named_buffers()) out.emplace_back(item.key(), item.value());
  return out;
}

Guards Guards::for_graph(const fx::GraphModule& gm, const std::vector<Tensor>& inputs,
                         const nn::Module* module) {
  Guards g = for_inputs(inputs);
  size_t k = 0;
  for (const fx::Node& n : gm.graph().nodes()) {
    if (n.kind == fx::NodeKind::Placeholder && k < g.inputs.size()) {
      g.inputs[k++].meta = n.outputs[0];
    }
  }
  for (const auto& [name, t] : gm.attrs()) g.held.push_back({name, t, fx::ValueMeta::of(t)});
  if (module) {
    g.module = module;
    g.module_tensors = lifted_tensors(*module);
    for (const auto& m : const_cast<nn::Module*>(module)->modules()) {
      g.training.emplace_back(m, m->is_training());
    }
  }
  return g;
}

Guards Guards::for_inputs(const std::vector<Tensor>& inputs) {
  Guards g;
  g.grad_enabled = is_grad_enabled();
  for (const Tensor& t : inputs) {
    g.inputs.push_back({fx::ValueMeta::of(t), t.defined() && t.requires_grad()});
  }
  return g;
}

std::optional<std::string> Guards::check(const std::vector<Tensor>& args) const {
  if (is_grad_enabled() != grad_enabled) {
    return std::string("grad mode changed from ") + (grad_enabled ? "enabled" : "disabled") +
           " to " + (grad_enabled ? "disabled" : "enabled");
  }
  if (args.size() != inputs.size()) {
    return "expected " + std::to_string(inputs.size()) + " inputs, got " +
           std::to_string(args.size());
  }
  fx::SymbolValues values;
  std::map<std::string, Bound> bound;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string r =
        check_kind("input " + std::to_string(i), inputs[i].meta, inputs[i].requires_grad, args[i]);
    if (r.empty() && args[i].defined()) r = check_sizes(i, inputs[i].meta, args[i], values, bound);
    if (!r.empty()) return r;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!args[i].defined()) continue;
    std::string r = check_layout("input " + std::to_string(i), inputs[i].meta, args[i], values);
    if (!r.empty()) return r;
  }
  for (const auto& [m, training] : training) {
    if (m->is_training() != training) {
      return "module " + m->name() + ": training changed from " + on_off(training) + " to " +
             on_off(m->is_training());
    }
  }
  if (module) {
    const auto now = lifted_tensors(*module);
    if (now.size() != module_tensors.size()) {
      return "the module has " + std::to_string(now.size()) + " parameters and buffers, " +
             std::to_string(module_tensors.size()) + " when compiled";
    }
    for (size_t k = 0; k < now.size(); ++k) {
      const auto& [name, t] = module_tensors[k];
      if (now[k].first != name || !now[k].second.is_same(t)) {
        return "'" + now[k].first + "' is not the tensor '" + name + "' the graph holds";
      }
    }
  }
  for (const Held& h : held) {
    if (std::string r = check_held(h); !r.empty()) return r;
  }
  return std::nullopt;
}

}  // namespace ember::compiler
