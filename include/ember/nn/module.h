#pragma once
// nn::Module with libtorch's interface: parameters, buffers and submodules registered by name,
// train/eval, state dicts with strict checking, and ModuleHolder (`Linear fc{nullptr};
// fc->forward(x)`, TORCH_MODULE).
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "ember/core/ordered_dict.h"
#include "ember/core/tensor.h"

namespace ember {

using StateDict = OrderedDict<std::string, Tensor>;

namespace serialize {
class OutputArchive;
class InputArchive;
}  // namespace serialize

namespace nn {

class Module : public std::enable_shared_from_this<Module> {
 public:
  /// `name` defaults to the class name (as libtorch, e.g. "torch::nn::LinearImpl" there,
  /// "ember::nn::LinearImpl" here).
  explicit Module(std::string name = "");
  virtual ~Module() = default;
  Module(const Module&) = default;
  Module& operator=(const Module&) = default;

  const std::string& name() const;

  /// Registers a parameter (requires_grad set as asked; undefined tensors are allowed, as
  /// libtorch's optional bias, and are skipped by parameters()).
  Tensor& register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  Tensor& register_buffer(std::string name, Tensor tensor);
  template <typename M>
  std::shared_ptr<M> register_module(std::string name, std::shared_ptr<M> module) {
    register_module_impl(std::move(name), module);
    return module;
  }
  template <typename H, typename = decltype(std::declval<H>().ptr())>
  auto register_module(std::string name, const H& holder) {
    return register_module(std::move(name), holder.ptr());
  }
  /// Removes a registered submodule (IndexError when absent).
  void unregister_module(const std::string& name) { children_.erase(name); }
  /// Replaces a registered submodule (libtorch's replace_module).
  template <typename M>
  std::shared_ptr<M> replace_module(const std::string& name, std::shared_ptr<M> module) {
    children_[name] = module;
    return module;
  }

  std::vector<Tensor> parameters(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_buffers(bool recurse = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_children() const;
  /// This module (first) and every descendant, depth first.
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true);
  OrderedDict<std::string, std::shared_ptr<Module>> named_modules(const std::string& prefix = "",
                                                                  bool include_self = true);

  virtual void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }
  /// set_to_none (default, as PyTorch 2.x) drops the gradients; otherwise zeroes them.
  void zero_grad(bool set_to_none = true);
  /// Converts floating parameters and buffers in place (their Tensor handles stay valid).
  virtual void to(ScalarType dtype, bool non_blocking = false);
  virtual void to(Device device, bool non_blocking = false);
  /// Calls fn on this module and every descendant.
  void apply(const std::function<void(Module&)>& fn);
  void apply(const std::function<void(const std::string&, Module&)>& fn,
             const std::string& prefix = "");

  /// Parameters and buffers under dotted names ("encoder.0.weight").
  StateDict state_dict() const;
  /// Copies values in; with strict, a missing, unexpected or mis-shaped key raises an error that
  /// names every offending key. Returns the missing and unexpected keys (non-strict use).
  std::pair<std::vector<std::string>, std::vector<std::string>> load_state_dict(
      const StateDict& state, bool strict = true);

  /// libtorch's archive interface (ember/serialize/archive.h): writes this module's parameters,
  /// buffers and, recursively, its submodules' under their names; load reads them back into the
  /// existing tensors (shapes must match).
  virtual void save(serialize::OutputArchive& archive) const;
  virtual void load(serialize::InputArchive& archive);

  virtual void pretty_print(std::ostream& stream) const;

 protected:
  bool training_ = true;

 private:
  void register_module_impl(std::string name, std::shared_ptr<Module> module);
  void collect(const std::string& prefix, bool params, bool recurse,
               OrderedDict<std::string, Tensor>& out) const;

  mutable std::string name_;
  OrderedDict<std::string, Tensor> parameters_{"Parameter"};
  OrderedDict<std::string, Tensor> buffers_{"Buffer"};
  OrderedDict<std::string, std::shared_ptr<Module>> children_{"Submodule"};
};

std::ostream& operator<<(std::ostream& os, const Module& module);

/// Owns a module by shared pointer (libtorch's ModuleHolder): `Linear fc{nullptr}` is empty,
/// `Linear fc(4, 8)` constructs LinearImpl(4, 8); fc->forward(x) or fc(x).
template <typename Contained>
class ModuleHolder {
 public:
  using ContainedType = Contained;
  ModuleHolder() : impl_(make_default()) {}
  ModuleHolder(std::nullptr_t) {}
  ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {}
  template <
      typename Head, typename... Tail,
      typename = std::enable_if_t<!std::is_same_v<std::decay_t<Head>, std::nullptr_t> &&
                                  !std::is_same_v<std::decay_t<Head>, std::shared_ptr<Contained>> &&
                                  !std::is_base_of_v<ModuleHolder, std::decay_t<Head>>>>
  explicit ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(std::make_shared<Contained>(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}

  Contained* operator->() { return checked(); }
  const Contained* operator->() const { return checked(); }
  Contained& operator*() { return *checked(); }
  const Contained& operator*() const { return *checked(); }
  const std::shared_ptr<Contained>& ptr() const {
    checked();
    return impl_;
  }
  Contained* get() { return checked(); }
  bool is_empty() const { return impl_ == nullptr; }
  explicit operator bool() const { return !is_empty(); }
  template <typename... Args>
  decltype(auto) operator()(Args&&... args) {
    return checked()->forward(std::forward<Args>(args)...);
  }

 private:
  static std::shared_ptr<Contained> make_default() {
    if constexpr (std::is_default_constructible_v<Contained>) {
      return std::make_shared<Contained>();
    } else {
      return nullptr;
    }
  }
  Contained* checked() const {
    EMBER_CHECK(impl_ != nullptr, "[ModuleHolder] Accessing empty ModuleHolder");
    return impl_.get();
  }
  std::shared_ptr<Contained> impl_;
};

}  // namespace nn
}  // namespace ember

/// Defines `Name` as a ModuleHolder of `NameImpl` (libtorch's TORCH_MODULE).
#define EMBER_MODULE(Name)                                     \
  class Name : public ::ember::nn::ModuleHolder<Name##Impl> {  \
   public:                                                     \
    using ::ember::nn::ModuleHolder<Name##Impl>::ModuleHolder; \
    using Impl = Name##Impl;                                   \
  }
