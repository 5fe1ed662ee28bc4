// Every differentiable op of the op database through the joint graph (Note [Joint graph]): its
// gradient samples are traced with their backward, and the joint graph, and the forward and
// backward graphs the partitioner makes of it, give eager autograd's outputs and gradients.
#include <ember/compiler.h>
#include <ember/fx/joint.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "opdb.h"

namespace ember::test {
namespace {

// Empty when the sample's joint graph agrees with eager autograd, else why not.
std::string joint_sample(const OpInfo& info, const Sample& s, int& checked) {
  const JointFn fn = [&](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{info.grad_op ? info.grad_op(in) : info.op(in)};
  };
  std::vector<Tensor> inputs = s.inputs, wants;
  for (Tensor& t : inputs) {
    if (t.defined() && t.is_floating_point() && t.numel() > 0) {
      t = t.detach().requires_grad_();
      wants.push_back(t);
    }
  }
  if (wants.empty()) return "";
  const Tensor out = fn(inputs)[0];
  if (!out.requires_grad() || out.numel() == 0) return "";
  const Tensor tangent = randn(out.sizes(), out.dtype());
  const std::vector<Tensor> eager = autograd::grad({out}, wants, {tangent}, std::nullopt, false,
                                                   /*allow_unused=*/true);
  const auto [rtol, atol] = tolerances(out.dtype());
  auto same = [&, rtol = rtol, atol = atol](const std::vector<Tensor>& grads) -> std::string {
    for (size_t i = 0, k = 0; i < inputs.size(); ++i) {
      if (!(inputs[i].defined() && inputs[i].requires_grad())) continue;
      const Tensor& want = eager[k++];
      const Tensor& got = grads[i];
      if (!want.defined() && !got.defined()) continue;
      const Tensor w = want.defined() ? want : zeros_like(got);
      if (!got.defined() || !got.allclose(w, rtol * 10, atol * 10)) {
        return "the gradient of input " + std::to_string(i) + " differs";
      }
    }
    return "";
  };
  fx::JointGraph joint;
  try {
    joint = make_joint(fn, inputs);
    const std::vector<Tensor> got = joint(inputs, {tangent});
    if (!got[0].allclose(out.detach(), rtol, atol)) return "the joint graph's output differs";
    if (auto why = same({got.begin() + 1, got.end()}); !why.empty()) {
      return "joint graph: " + why + "\n" + joint.module.graph().to_string();
    }
    const fx::PartitionedGraphs p = fx::partition(joint);
    std::vector<Tensor> fwd = p.forward(inputs);
    std::vector<Tensor> bw_in(fwd.begin() + 1, fwd.end());
    bw_in.push_back(tangent);
    const std::vector<Tensor> bw = p.backward(bw_in);
    std::vector<Tensor> grads;
    for (int k : p.grad_of) grads.push_back(k < 0 ? Tensor() : bw.at(k));
    if (auto why = same(grads); !why.empty()) {
      return "partitioned: " + why + "\n" + joint.module.graph().to_string();
    }
  } catch (const std::exception& e) {
    return std::string("failed: ") + e.what();
  }
  ++checked;
  return "";
}

// A declared non-differentiable op traced jointly behaves as eager autograd does: an output that
// carries no gradient gives the joint graph no tangent and no gradient, and a derivative PyTorch
// leaves not implemented raises NotImplementedError while tracing, as eager backward does.
void joint_not_differentiable(const OpInfo& info) {
  const JointFn fn = [&](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{info.grad_op ? info.grad_op(in) : info.op(in)};
  };
  const auto floating = std::find_if(info.dtypes.begin(), info.dtypes.end(),
                                     [](ScalarType d) { return is_floating_point(d); });
  if (floating == info.dtypes.end()) {
    // No input can require grad: nothing to differentiate, which is why the op is declared so.
    ::testing::Test::RecordProperty("joint_samples", 0);
    return;
  }
  int checked = 0;
  for (const Sample& s : info.samples(*floating)) {
    SCOPED_TRACE(info.name + " " + dtype_name(*floating) + " " + s.desc);
    std::vector<Tensor> inputs = s.inputs;
    for (Tensor& t : inputs) {
      if (t.defined() && t.is_floating_point()) t = t.detach().requires_grad_();
    }
    const Tensor out = fn(inputs)[0];
    if (out.requires_grad()) {  // even when empty: tracing the backward meets the missing vjp
      EXPECT_THROW(make_joint(fn, inputs), NotImplementedError);
    } else {
      const fx::JointGraph joint = make_joint(fn, inputs);
      EXPECT_EQ(joint.num_tangents, 0u);
      for (int g : joint.grad_of) EXPECT_EQ(g, -1) << "a primal has a gradient";
      const std::vector<Tensor> got = joint(inputs, {});
      EXPECT_TRUE(got.at(0).equal(out)) << "the joint graph's output differs";
    }
    ++checked;
  }
  ::testing::Test::RecordProperty("joint_samples", checked);
  EXPECT_GT(checked, 0) << info.name << ": no " << dtype_name(*floating) << " sample";
}

TEST_P(OpTest, JointGraphMatchesEagerGradients) {
  const OpInfo& info = GetParam();
  if (!info.not_differentiable.empty()) {
    joint_not_differentiable(info);
    return;
  }
  manual_seed(0);
  std::vector<std::string> failures;
  int checked = 0;
  for (const Sample& s : info.grad_samples ? info.grad_samples() : info.samples(kFloat64)) {
    if (!s.no_gradcheck.empty()) continue;  // Gradcheck prints and counts these
    if (auto why = joint_sample(info, s, checked); !why.empty()) {
      failures.push_back(s.desc + ": " + why);
    }
  }
  ::testing::Test::RecordProperty("joint_samples", checked);
  if (checked == 0 && failures.empty()) {
    std::printf("[ joint    ] %s: no sample has a differentiable output of nonzero size\n",
                info.name.c_str());
  }
  for (size_t i = 0; i < failures.size() && i < 2; ++i) {
    ADD_FAILURE() << info.name << " " << failures[i];
  }
  if (failures.size() > 2) ADD_FAILURE() << info.name << ": " << failures.size() - 2 << " more";
}

}  // namespace
}  // namespace ember::test
