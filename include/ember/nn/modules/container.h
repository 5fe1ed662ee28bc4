#pragma once
// Sequential, ModuleList and ModuleDict (libtorch's containers). Sequential chains modules whose
// forward maps one Tensor to one Tensor.
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

/// A type-erased `Tensor forward(Tensor)` module, as Sequential stores it.
class AnyModule {
 public:
  AnyModule() = default;
  template <typename M, typename = std::enable_if_t<std::is_base_of_v<Module, M>>>
  AnyModule(std::shared_ptr<M> module)
      : module_(module), forward_([m = module.get()](const Tensor& x) { return m->forward(x); }) {}
  template <typename H, typename = decltype(std::declval<H>().ptr()),
            typename = std::enable_if_t<!std::is_base_of_v<Module, H>>>
  AnyModule(const H& holder) : AnyModule(holder.ptr()) {}
  Tensor forward(const Tensor& x) const { return forward_(x); }
  const std::shared_ptr<Module>& ptr() const { return module_; }

 private:
  std::shared_ptr<Module> module_;
  std::function<Tensor(const Tensor&)> forward_;
};

/// Wraps a function as a module: Sequential(Linear(2, 3), Functional(ember::relu)).
class FunctionalImpl : public Module {
 public:
  explicit FunctionalImpl(std::function<Tensor(const Tensor&)> fn)
      : Module("ember::nn::Functional"), fn_(std::move(fn)) {}
  template <typename F, typename... Args, typename = std::enable_if_t<(sizeof...(Args) > 0)>>
  FunctionalImpl(F fn, Args... args)
      : FunctionalImpl(std::function<Tensor(const Tensor&)>(
            [fn, args...](const Tensor& x) { return fn(x, args...); })) {}
  Tensor forward(const Tensor& x) { return fn_(x); }

 private:
  std::function<Tensor(const Tensor&)> fn_;
};
class Functional : public ModuleHolder<FunctionalImpl> {
 public:
  using ModuleHolder<FunctionalImpl>::ModuleHolder;
  Functional(Tensor (*fn)(const Tensor&))
      : ModuleHolder(std::make_shared<FunctionalImpl>(std::function<Tensor(const Tensor&)>(fn))) {}
};

class SequentialImpl : public Module {
 public:
  SequentialImpl() : Module("ember::nn::Sequential") {}
  template <typename... Ms>
  explicit SequentialImpl(Ms&&... modules) : SequentialImpl() {
    (push_back(AnyModule(std::forward<Ms>(modules))), ...);
  }
  /// Named entries: Sequential({{"fc", Linear(2, 3)}, {"act", ReLU()}}).
  SequentialImpl(std::initializer_list<std::pair<std::string, AnyModule>> named);

  void push_back(AnyModule module);
  void push_back(std::string name, AnyModule module);
  template <typename M>
  void push_back(std::shared_ptr<M> module) {
    push_back(AnyModule(std::move(module)));
  }
  Tensor forward(const Tensor& x);
  template <typename Return = Tensor>
  Return forward_as(const Tensor& x) {
    return forward(x);
  }
  size_t size() const { return modules_.size(); }
  bool is_empty() const { return modules_.empty(); }
  std::shared_ptr<Module> ptr(size_t index) const;
  template <typename M>
  std::shared_ptr<M> ptr(size_t index) const {
    return std::dynamic_pointer_cast<M>(ptr(index));
  }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  void pretty_print(std::ostream& stream) const override { stream << "ember::nn::Sequential"; }

 private:
  std::vector<AnyModule> modules_;
};
class Sequential : public ModuleHolder<SequentialImpl> {
 public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  Sequential(std::initializer_list<std::pair<std::string, AnyModule>> named)
      : ModuleHolder(std::make_shared<SequentialImpl>(named)) {}
};

class ModuleListImpl : public Module {
 public:
  ModuleListImpl() : Module("ember::nn::ModuleList") {}
  template <typename... Ms>
  explicit ModuleListImpl(Ms&&... modules) : ModuleListImpl() {
    (push_back(std::forward<Ms>(modules)), ...);
  }
  void push_back(std::shared_ptr<Module> module);
  template <typename H, typename = decltype(std::declval<H>().ptr())>
  void push_back(const H& holder) {
    push_back(std::static_pointer_cast<Module>(holder.ptr()));
  }
  void extend(const std::vector<std::shared_ptr<Module>>& modules) {
    for (const auto& m : modules) push_back(m);
  }
  size_t size() const { return modules_.size(); }
  bool is_empty() const { return modules_.empty(); }
  std::shared_ptr<Module> ptr(size_t index) const;
  template <typename M>
  std::shared_ptr<M> ptr(size_t index) const {
    return std::dynamic_pointer_cast<M>(ptr(index));
  }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  auto begin() const { return modules_.begin(); }
  auto end() const { return modules_.end(); }

 private:
  std::vector<std::shared_ptr<Module>> modules_;
};
EMBER_MODULE(ModuleList);

class ModuleDictImpl : public Module {
 public:
  ModuleDictImpl() : Module("ember::nn::ModuleDict") {}
  explicit ModuleDictImpl(
      const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& items);
  explicit ModuleDictImpl(const OrderedDict<std::string, std::shared_ptr<Module>>& items);
  std::shared_ptr<Module> insert(const std::string& key, std::shared_ptr<Module> module);
  std::shared_ptr<Module> operator[](const std::string& key) const;
  template <typename M>
  std::shared_ptr<M> at(const std::string& key) const {
    return std::dynamic_pointer_cast<M>((*this)[key]);
  }
  bool contains(const std::string& key) const { return modules_.contains(key); }
  std::shared_ptr<Module> pop(const std::string& key);
  void clear();
  size_t size() const { return modules_.size(); }
  bool empty() const { return modules_.empty(); }
  std::vector<std::string> keys() const { return modules_.keys(); }
  std::vector<std::shared_ptr<Module>> values() const { return modules_.values(); }
  const std::vector<OrderedDict<std::string, std::shared_ptr<Module>>::Item>& items() const {
    return modules_.items();
  }

 private:
  OrderedDict<std::string, std::shared_ptr<Module>> modules_{"Module"};
};
class ModuleDict : public ModuleHolder<ModuleDictImpl> {
 public:
  using ModuleHolder<ModuleDictImpl>::ModuleHolder;
  ModuleDict(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& items)
      : ModuleHolder(std::make_shared<ModuleDictImpl>(items)) {}
};

}  // namespace ember::nn
