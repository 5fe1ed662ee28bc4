#include "ember/nn/module.h"

#include <set>
#include <sstream>

#include "ember/autograd.h"
#include "ember/autograd/function.h"
#include "ops/util.h"

namespace ember::nn {

Module::Module(std::string name) : name_(std::move(name)) {}

const std::string& Module::name() const {
  if (name_.empty()) name_ = autograd::demangle(typeid(*this).name());
  return name_;
}

Tensor& Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
  EMBER_CHECK_VALUE(!name.empty(), "[register_parameter] Parameter name must not be empty");
  EMBER_CHECK_VALUE(name.find('.') == std::string::npos,
                    "[register_parameter] Parameter name "
                    "must not contain a dot (got \"",
                    name, "\")");
  if (tensor.defined()) tensor.requires_grad_(requires_grad);
  return parameters_.insert(std::move(name), std::move(tensor));
}

Tensor& Module::register_buffer(std::string name, Tensor tensor) {
  EMBER_CHECK_VALUE(!name.empty(), "[register_buffer] Buffer name must not be empty");
  EMBER_CHECK_VALUE(name.find('.') == std::string::npos,
                    "[register_buffer] Buffer name must not "
                    "contain a dot (got \"",
                    name, "\")");
  return buffers_.insert(std::move(name), std::move(tensor));
}

void Module::register_module_impl(std::string name, std::shared_ptr<Module> module) {
  EMBER_CHECK_VALUE(!name.empty(), "[register_module] Submodule name must not be empty");
  EMBER_CHECK_VALUE(name.find('.') == std::string::npos,
                    "[register_module] Submodule name must "
                    "not contain a dot (got \"",
                    name, "\")");
  EMBER_CHECK_VALUE(module != nullptr, "[register_module] Submodule '", name, "' is null");
  children_.insert(std::move(name), std::move(module));
}

void Module::collect(const std::string& prefix, bool params, bool recurse,
                     OrderedDict<std::string, Tensor>& out) const {
  for (const auto& item : params ? parameters_ : buffers_) {
    if (item.value().defined()) out.insert(prefix + item.key(), item.value());
  }
  if (!recurse) return;
  for (const auto& child : children_) {
    child.value()->collect(prefix + child.key() + ".", params, true, out);
  }
}

OrderedDict<std::string, Tensor> Module::named_parameters(bool recurse) const {
  OrderedDict<std::string, Tensor> out;
  collect("", true, recurse, out);
  return out;
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  // A parameter shared by two submodules (weight tying) is listed once.
  std::vector<Tensor> out;
  std::set<const TensorImpl*> seen;
  for (const auto& item : named_parameters(recurse)) {
    if (seen.insert(item.value().unsafeGetTensorImpl()).second) out.push_back(item.value());
  }
  return out;
}

OrderedDict<std::string, Tensor> Module::named_buffers(bool recurse) const {
  OrderedDict<std::string, Tensor> out;
  collect("", false, recurse, out);
  return out;
}

std::vector<Tensor> Module::buffers(bool recurse) const { return named_buffers(recurse).values(); }

std::vector<std::shared_ptr<Module>> Module::children() const { return children_.values(); }

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_children() const {
  return children_;
}

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) {
  return named_modules("", include_self).values();
}

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_modules(const std::string& prefix,
                                                                        bool include_self) {
  OrderedDict<std::string, std::shared_ptr<Module>> out;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> stack;
  if (include_self) {
    out.insert(prefix, shared_from_this());
  }
  auto push_children = [&](const std::string& pre, const Module& m) {
    auto kids = m.children_.items();
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
      stack.emplace_back(pre.empty() ? it->key() : pre + "." + it->key(), it->value());
    }
  };
  push_children(prefix, *this);
  while (!stack.empty()) {
    auto [name, m] = stack.back();
    stack.pop_back();
    if (!out.contains(name)) out.insert(name, m);
    push_children(name, *m);
  }
  return out;
}

void Module::train(bool on) {
  training_ = on;
  for (const auto& child : children_) child.value()->train(on);
}

void Module::zero_grad(bool set_to_none) {
  for (auto& p : parameters()) {
    if (!p.grad().defined()) continue;
    if (set_to_none) {
      p.mutable_grad() = Tensor();
    } else {
      NoGradGuard g;
      p.mutable_grad().zero_();
    }
  }
}

void Module::to(ScalarType dtype, bool) {
  NoGradGuard g;
  for (auto& item : parameters_) {
    Tensor& t = item.value();
    if (!t.defined() || !t.is_floating_point() || t.dtype() == dtype) continue;
    t.unsafeGetTensorImpl()->set_data(*t.to(dtype).unsafeGetTensorImpl());
    if (t.grad().defined()) t.mutable_grad() = Tensor();
  }
  for (auto& item : buffers_) {
    Tensor& t = item.value();
    if (t.defined() && t.is_floating_point() && t.dtype() != dtype) {
      t.unsafeGetTensorImpl()->set_data(*t.to(dtype).unsafeGetTensorImpl());
    }
  }
  for (const auto& child : children_) child.value()->to(dtype);
}

void Module::to(Device device, bool) {
  check_device_available(device, "Module.to");
  NoGradGuard g;
  auto move = [&](Tensor& t) {
    if (t.defined() && t.device().type() != device.type()) {
      t.unsafeGetTensorImpl()->set_data(*t.to(device).unsafeGetTensorImpl());
    }
  };
  for (auto& item : parameters_) {
    move(item.value());
    if (item.value().grad().defined()) move(item.value().mutable_grad());
  }
  for (auto& item : buffers_) move(item.value());
  for (const auto& child : children_) child.value()->to(device);
}

void Module::apply(const std::function<void(Module&)>& fn) {
  fn(*this);
  for (const auto& child : children_) child.value()->apply(fn);
}

void Module::apply(const std::function<void(const std::string&, Module&)>& fn,
                   const std::string& prefix) {
  fn(prefix, *this);
  for (const auto& child : children_) {
    child.value()->apply(fn, prefix.empty() ? child.key() : prefix + "." + child.key());
  }
}

StateDict Module::state_dict() const {
  // PyTorch's order: each module's parameters, then its buffers, then its children's entries.
  StateDict out;
  std::function<void(const Module&, const std::string&)> add = [&](const Module& m,
                                                                   const std::string& prefix) {
    m.collect(prefix, true, false, out);
    m.collect(prefix, false, false, out);
    for (const auto& child : m.children_) add(*child.value(), prefix + child.key() + ".");
  };
  add(*this, "");
  return out;
}

std::pair<std::vector<std::string>, std::vector<std::string>> Module::load_state_dict(
    const StateDict& state, bool strict) {
  StateDict own = state_dict();
  std::vector<std::string> missing, unexpected, mismatched;
  for (const auto& item : own) {
    const Tensor* src = state.find(item.key());
    if (!src) {
      missing.push_back(item.key());
    } else if (src->sizes() != item.value().sizes()) {
      mismatched.push_back("size mismatch for " + item.key() + ": copying a param with shape " +
                           ops::shape_str(src->sizes()) +
                           " from checkpoint, the shape in "
                           "current model is " +
                           ops::shape_str(item.value().sizes()) + ".");
    }
  }
  for (const auto& item : state) {
    if (!own.contains(item.key())) unexpected.push_back(item.key());
  }
  auto join = [](const std::vector<std::string>& keys) {
    std::string s;
    for (const auto& k : keys) s += (s.empty() ? "\"" : ", \"") + k + "\"";
    return s;
  };
  std::string errors;
  if (strict && !missing.empty()) errors += " Missing key(s) in state_dict: " + join(missing) + ".";
  if (strict && !unexpected.empty()) {
    errors += " Unexpected key(s) in state_dict: " + join(unexpected) + ".";
  }
  for (const auto& m : mismatched) errors += " " + m;
  EMBER_CHECK(errors.empty(), "[load_state_dict] Error(s) in loading state_dict for ", name(), ":",
              errors);
  NoGradGuard g;
  for (auto& item : own) {
    if (const Tensor* src = state.find(item.key())) item.value().copy_(*src);
  }
  return {missing, unexpected};
}

void Module::pretty_print(std::ostream& stream) const { stream << name(); }

std::ostream& operator<<(std::ostream& os, const Module& module) {
  // PyTorch's nested layout: Name(\n  (child): ChildName(...)\n)
  struct Printer {
    static void print(std::ostream& os, const Module& m, int indent) {
      m.pretty_print(os);
      auto kids = m.named_children();
      if (kids.empty()) return;
      os << "(\n";
      for (const auto& k : kids) {
        os << std::string(indent + 2, ' ') << "(" << k.key() << "): ";
        print(os, *k.value(), indent + 2);
        os << "\n";
      }
      os << std::string(indent, ' ') << ")";
    }
  };
  Printer::print(os, module, 0);
  return os;
}

}  // namespace ember::nn
