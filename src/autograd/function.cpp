// Custom autograd functions (ember/autograd/function.h).
#include "ember/autograd/function.h"

#include <cxxabi.h>

#include <cstdlib>

#include "autograd/functions.h"
#include "ember/ops/factory.h"
#include "ops/util.h"

namespace ember::autograd {

struct AutogradContext::Saved {
  std::vector<SavedVariable> vars;
  std::weak_ptr<Node> owner;
  std::string owner_name;
  bool released = false;
};

std::string demangle(const char* name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = (status == 0 && d) ? d : name;
  std::free(d);
  return out;
}

variable_list AutogradContext::get_saved_variables() const {
  if (!saved_) return to_save_;  // forward is still running
  EMBER_CHECK(!saved_->released,
              "[autograd] Trying to backward through the graph a second time "
              "(or directly access saved tensors after they have already been freed). Specify "
              "retain_graph=True if you need to backward through the graph a second time.");
  variable_list out;
  auto owner = saved_->owner.lock();
  for (const auto& v : saved_->vars) out.push_back(v.unpack(owner, saved_->owner_name));
  return out;
}

void CustomNode::set_inputs(const variable_list& inputs, std::vector<int> positions) {
  inputs_ = inputs;
  positions_ = std::move(positions);
  num_args_ = positions_.size();
  const bool grad_mode = is_grad_enabled();
  ctx_.needs_input_grad_.assign(num_args_, false);
  for (size_t a = 0; a < num_args_; ++a) {
    const int p = positions_[a];
    ctx_.needs_input_grad_[a] =
        p >= 0 && grad_mode && inputs_[p].defined() && inputs_[p].requires_grad();
  }
}

variable_list CustomNode::wrap_outputs(variable_list outputs) {
  bool any = false;
  for (bool b : ctx_.needs_input_grad_) any |= b;
  auto is_in = [](const Tensor& t, const variable_list& list) {
    for (const auto& x : list) {
      if (x.defined() && t.is_same(x)) return true;
    }
    return false;
  };
  for (size_t i = 0; i < outputs.size(); ++i) {
    Tensor& out = outputs[i];
    if (!out.defined()) continue;
    const bool dirty = is_in(out, ctx_.dirty_);
    if (dirty) {
      EMBER_CHECK(!(out.is_leaf() && out.requires_grad()) || !is_grad_enabled(), "[", name_,
                  "] a leaf Variable that requires grad has been used in an in-place operation.");
    } else if (is_in(out, inputs_)) {
      out = out.detach();  // an input returned as is becomes a new output alias
    }
  }
  if (any) {
    for (size_t p = 0; p < inputs_.size(); ++p) {
      mutable_next_edges().push_back(
          inputs_[p].defined() && inputs_[p].requires_grad() ? gradient_edge(inputs_[p]) : Edge{});
    }
    auto self = shared_from_this();
    for (size_t i = 0; i < outputs.size(); ++i) {
      const Tensor& out = outputs[i];
      mutable_output_meta().push_back(out.defined() ? OutputMeta::of(out) : OutputMeta{});
      if (out.defined() && out.is_floating_point() && !is_in(out, ctx_.non_differentiable_)) {
        set_history(out, self, static_cast<uint32_t>(i));
      }
    }
  }
  auto saved = std::make_shared<AutogradContext::Saved>();
  saved->owner = weak_from_this();
  saved->owner_name = name_;
  for (const auto& t : ctx_.to_save_) {
    std::optional<uint32_t> nr;
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (t.defined() && outputs[i].defined() && t.is_same(outputs[i]))
        nr = static_cast<uint32_t>(i);
    }
    saved->vars.emplace_back(t, any ? nr : std::nullopt);
  }
  ctx_.saved_ = std::move(saved);
  ctx_.to_save_.clear();
  ctx_.dirty_.clear();
  ctx_.non_differentiable_.clear();
  return outputs;
}

void CustomNode::release_variables() {
  if (ctx_.saved_ && !ctx_.saved_->vars.empty()) {
    ctx_.saved_->vars.clear();
    ctx_.saved_->released = true;
  }
}

std::vector<Tensor> CustomNode::apply(std::vector<Tensor>&& grads) {
  if (ctx_.materialize_grads_) {
    for (size_t i = 0; i < grads.size(); ++i) {
      const auto& m = output_meta()[i];
      if (!grads[i].defined() && is_floating_point(m.dtype)) {
        grads[i] = zeros(m.sizes, TensorOptions().dtype(m.dtype));
      }
    }
  }
  variable_list res = backward_(&ctx_, std::move(grads));
  // libtorch drops trailing undefined gradients: those of defaulted forward arguments that the
  // call did not pass (forward(ctx, x, w, bias = Tensor()) applied to (x, w)).
  while (res.size() > num_args_ && !res.back().defined()) res.pop_back();
  EMBER_CHECK(res.size() == num_args_, "[", name_,
              "] function backward returned an incorrect "
              "number of gradients (expected ",
              num_args_, ", got ", res.size(), ")");
  std::vector<Tensor> out(inputs_.size());
  for (size_t a = 0; a < num_args_; ++a) {
    const int p = positions_[a];
    if (p < 0) {
      EMBER_CHECK(!res[a].defined(), "[", name_,
                  "] function backward returned a gradient "
                  "different than None at position ",
                  a,
                  ", but the corresponding forward input "
                  "was not a Variable");
      continue;
    }
    if (!res[a].defined() || !next_edges()[p].is_valid()) continue;
    const auto& want = inputs_[p].sizes();
    Tensor g = res[a];
    if (g.sizes() != want) {
      try {
        g = sum_to(g, shape_of(inputs_[p]));
      } catch (const Error&) {
        EMBER_THROW(RuntimeError, "[", name_, "] Function ", name_,
                    " returned an invalid "
                    "gradient at index ",
                    a, " - got ", ops::shape_str(res[a].sizes()),
                    " but expected shape compatible with ", ops::shape_str(want));
      }
    }
    out[p] = g.dtype() == inputs_[p].dtype() ? g : g.to(inputs_[p].dtype());
  }
  return out;
}

}  // namespace ember::autograd
