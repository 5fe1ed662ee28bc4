#include "ember/nn/modules/container.h"

namespace ember::nn {

SequentialImpl::SequentialImpl(std::initializer_list<std::pair<std::string, AnyModule>> named)
    : SequentialImpl() {
  for (const auto& [name, m] : named) push_back(name, m);
}

void SequentialImpl::push_back(AnyModule module) {
  push_back(std::to_string(modules_.size()), std::move(module));
}

void SequentialImpl::push_back(std::string name, AnyModule module) {
  register_module(std::move(name), module.ptr());
  modules_.push_back(std::move(module));
}

Tensor SequentialImpl::forward(const Tensor& x) {
  EMBER_CHECK(!modules_.empty(), "[Sequential] Cannot call forward() on an empty Sequential");
  Tensor y = x;
  for (const auto& m : modules_) y = m.forward(y);
  return y;
}

std::shared_ptr<Module> SequentialImpl::ptr(size_t index) const {
  EMBER_CHECK_INDEX(index < modules_.size(), "[Sequential] Index ", index,
                    " is out of range (size ", modules_.size(), ")");
  return modules_[index].ptr();
}

void ModuleListImpl::push_back(std::shared_ptr<Module> module) {
  register_module(std::to_string(modules_.size()), module);
  modules_.push_back(std::move(module));
}

std::shared_ptr<Module> ModuleListImpl::ptr(size_t index) const {
  EMBER_CHECK_INDEX(index < modules_.size(), "[ModuleList] Index ", index,
                    " is out of range (size ", modules_.size(), ")");
  return modules_[index];
}

ModuleDictImpl::ModuleDictImpl(
    const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& items)
    : ModuleDictImpl() {
  for (const auto& [k, m] : items) insert(k, m);
}

ModuleDictImpl::ModuleDictImpl(const OrderedDict<std::string, std::shared_ptr<Module>>& items)
    : ModuleDictImpl() {
  for (const auto& item : items) insert(item.key(), item.value());
}

std::shared_ptr<Module> ModuleDictImpl::insert(const std::string& key,
                                               std::shared_ptr<Module> module) {
  if (modules_.contains(key)) {
    modules_[key] = module;
    replace_module(key, module);
  } else {
    modules_.insert(key, module);
    register_module(key, module);
  }
  return module;
}

std::shared_ptr<Module> ModuleDictImpl::operator[](const std::string& key) const {
  const auto* m = modules_.find(key);
  EMBER_CHECK_INDEX(m != nullptr, "[ModuleDict] Module '", key, "' is not defined");
  return *m;
}

std::shared_ptr<Module> ModuleDictImpl::pop(const std::string& key) {
  auto m = (*this)[key];
  modules_.erase(key);
  unregister_module(key);
  return m;
}

void ModuleDictImpl::clear() {
  for (const auto& k : modules_.keys()) unregister_module(k);
  modules_.clear();
}

}  // namespace ember::nn
