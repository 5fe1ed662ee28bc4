#pragma once
// Custom autograd functions with libtorch's interface:
//
//   struct MulConstant : ember::autograd::Function<MulConstant> {
//     static Tensor forward(AutogradContext* ctx, Tensor x, double c) {
//       ctx->saved_data["c"] = c;
//       return x * c;
//     }
//     static variable_list backward(AutogradContext* ctx, variable_list grads) {
//       return {grads[0] * ctx->saved_data["c"].toDouble(), Tensor()};
//     }
//   };
//   Tensor y = MulConstant::apply(x, 2.0);
//
// backward returns one gradient per forward argument (undefined for non-tensors or where none);
// extra trailing undefined gradients (for defaulted arguments not given) are dropped, as in
// libtorch.
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <variant>
#include <vector>

#include "ember/autograd.h"
#include "ember/core/ivalue.h"

namespace ember::autograd {

using variable_list = std::vector<Tensor>;

/// libtorch's name for a list of tensors (what backward takes and returns).
using tensor_list = variable_list;
/// What AutogradContext::saved_data holds: Ember's IValue (ember/serialize/pickle.h), as in
/// libtorch where one IValue type serves both.
using IValue = ::ember::IValue;

class AutogradContext {
 public:
  /// Tensors the backward needs; checked for in-place modification when read back.
  void save_for_backward(variable_list to_save) { to_save_ = std::move(to_save); }
  variable_list get_saved_variables() const;
  /// Inputs the forward modified in place.
  void mark_dirty(const variable_list& inputs) { dirty_ = inputs; }
  /// Outputs that have no gradient (e.g. indices).
  void mark_non_differentiable(const variable_list& outputs) { non_differentiable_ = outputs; }
  /// Whether backward receives zeros (default) or undefined tensors for outputs without grad.
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  /// Whether forward input `index` needs a gradient.
  bool needs_input_grad(size_t index) const {
    return index < needs_input_grad_.size() && needs_input_grad_[index];
  }
  std::unordered_map<std::string, IValue> saved_data;

 private:
  friend class CustomNode;
  variable_list to_save_, dirty_, non_differentiable_;
  struct Saved;
  std::shared_ptr<Saved> saved_;
  std::vector<bool> needs_input_grad_;
  bool materialize_grads_ = true;
};

/// The node of a custom function; forwards to the user's static backward.
class CustomNode : public Node {
 public:
  using BackwardFn = std::function<variable_list(AutogradContext*, variable_list)>;
  CustomNode(std::string name, BackwardFn backward) : name_(std::move(name)), backward_(backward) {}
  std::string name() const override { return name_; }
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override;
  void release_variables() override;
  AutogradContext& ctx() { return ctx_; }
  /// Prepares ctx (which inputs need grad) before forward runs; `positions` maps each forward
  /// argument to its tensor input (-1 for non-tensors).
  void set_inputs(const variable_list& inputs, std::vector<int> positions);
  /// After forward: connects `outputs` to this node (or leaves them alone when no input
  /// requires grad) and saves ctx's tensors.
  variable_list wrap_outputs(variable_list outputs);

 private:
  std::string name_;
  BackwardFn backward_;
  AutogradContext ctx_;
  std::vector<int> positions_;
  size_t num_args_ = 0;
  variable_list inputs_;
};

std::string demangle(const char* name);

template <class T>
struct Function {
  template <typename... Args>
  static auto apply(Args&&... args) {
    auto node = std::make_shared<CustomNode>("CppNode<" + demangle(typeid(T).name()) + ">",
                                             [](AutogradContext* ctx, variable_list grads) {
                                               return T::backward(ctx, std::move(grads));
                                             });
    variable_list inputs;
    std::vector<int> positions;
    auto collect = [&](const auto& a) {
      if constexpr (std::is_same_v<std::decay_t<decltype(a)>, Tensor>) {
        positions.push_back(static_cast<int>(inputs.size()));
        inputs.push_back(a);
      } else {
        positions.push_back(-1);
      }
    };
    (collect(args), ...);
    node->set_inputs(inputs, std::move(positions));
    using Out = decltype(T::forward(&node->ctx(), std::forward<Args>(args)...));
    Out out = [&] {
      AutoGradMode no_grad(false);
      return T::forward(&node->ctx(), std::forward<Args>(args)...);
    }();
    if constexpr (std::is_same_v<Out, Tensor>) {
      return node->wrap_outputs({out})[0];
    } else {
      return node->wrap_outputs(std::move(out));
    }
  }
};

}  // namespace ember::autograd
