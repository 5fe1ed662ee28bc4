// compile(optimizer) (Note [Compiled optimizer step]): compiled Adam, AdamW and SGD steps against
// eager steps on identical copies and against a float64 closed form, with one compile over steps
// whose learning rate changes; state dicts, eager and compiled steps mixed, recompiles when the
// parameters with gradients change, errors. And Note [In-place stores]: in-place writes of inputs
// fused into the kernel computing them, against eager, with the hazards that must not fuse.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/lowering.h"
#include "ember/compiler.h"
#include "ember/ember.h"
#include "ember/nn.h"
#include "ember/optim.h"
#include "ember/profiler.h"
#include "ember/testing.h"
#include "fx_test_util.h"

namespace ember::test {
namespace {

class CompileOptimizer : public ::testing::Test {
 protected:
  void SetUp() override { compiler::reset(); }
};

// Leaf parameters of mixed shapes (two of one shape, a 0-d one, one 3-d).
std::vector<Tensor> make_params() {
  const std::vector<std::vector<int64_t>> shapes = {{4, 6}, {4, 6}, {6}, {3, 4, 5}, {}, {7}};
  std::vector<Tensor> ps;
  for (const auto& s : shapes) ps.push_back(randn(s).requires_grad_());
  return ps;
}

std::vector<Tensor> copies_of(const std::vector<Tensor>& ps) {
  std::vector<Tensor> out;
  for (const Tensor& p : ps) out.push_back(exact_copy(p).requires_grad_());
  return out;
}

// Gradients for `steps` steps; parameters in `without` get none.
std::vector<std::vector<Tensor>> make_grads(const std::vector<Tensor>& ps, int steps) {
  std::vector<std::vector<Tensor>> gs(steps);
  for (auto& step : gs) {
    for (const Tensor& p : ps) step.push_back(randn(p.sizes()));
  }
  return gs;
}

void set_grads(const std::vector<Tensor>& ps, const std::vector<Tensor>& gs,
               const std::vector<size_t>& without = {}) {
  for (size_t i = 0; i < ps.size(); ++i) {
    const bool none = std::find(without.begin(), without.end(), i) != without.end();
    Tensor p = ps[i];  // a handle: its impl's gradient is the parameter's
    p.mutable_grad() = none ? Tensor() : exact_copy(gs[i]);
  }
}

void expect_params_close(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE("parameter " + std::to_string(i));
    EXPECT_NO_THROW(testing::assert_close(a[i].detach(), b[i].detach()));
  }
}

void expect_state_dicts_close(const StateDict& a, const StateDict& b) {
  ASSERT_EQ(a.size(), b.size());
  for (const auto& item : a) {
    SCOPED_TRACE(item.key());
    const Tensor* other = b.find(item.key());
    ASSERT_NE(other, nullptr);
    EXPECT_NO_THROW(testing::assert_close(item.value(), *other));
  }
}

// Four steps of `eager` over `a` and of compile(compiled_opt) over `b` (copies of a) with the same
// gradients: parameters and state dicts agree, with one compile.
void expect_compiled_steps_match(optim::Optimizer& eager, const std::vector<Tensor>& a,
                                 optim::Optimizer& compiled_opt, const std::vector<Tensor>& b) {
  CompiledOptimizer step = compile(compiled_opt);
  for (const auto& g : make_grads(a, 4)) {
    set_grads(a, g);
    set_grads(b, g);
    eager.step();
    step();
    expect_params_close(b, a);
  }
  expect_state_dicts_close(compiled_opt.state_dict(), eager.state_dict());
  EXPECT_EQ(compiler::stats().compiles, 1);
}

std::vector<optim::OptimizerParamGroup> two_groups(const std::vector<Tensor>& ps,
                                                   optim::AdamWOptions decay,
                                                   optim::AdamWOptions no_decay) {
  std::vector<optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{ps[0], ps[1], ps[3]},
                      std::make_unique<optim::AdamWOptions>(decay));
  groups.emplace_back(std::vector<Tensor>{ps[2], ps[4], ps[5]},
                      std::make_unique<optim::AdamWOptions>(no_decay));
  return groups;
}

// torch.optim.AdamW's update of one element in float64, for `lrs.size()` steps.
double adamw_reference(double p, const std::vector<double>& gs, const std::vector<double>& lrs,
                       double b1, double b2, double eps, double wd) {
  double m = 0, v = 0;
  for (size_t t = 1; t <= lrs.size(); ++t) {
    const double g = gs[t - 1], lr = lrs[t - 1];
    p *= 1 - lr * wd;
    m = b1 * m + (1 - b1) * g;
    v = b2 * v + (1 - b2) * g * g;
    const double bc1 = 1 - std::pow(b1, t), bc2 = 1 - std::pow(b2, t);
    p -= lr / bc1 * m / (std::sqrt(v) / std::sqrt(bc2) + eps);
  }
  return p;
}

// AdamW with weight decay in one group, a LambdaLR changing lr every step and a parameter
// without a gradient: the compiled steps equal the eager ones and the float64 closed form, and
// compile once.
TEST_F(CompileOptimizer, AdamWMatchesEagerAndClosedFormWithOneCompile) {
  const std::vector<Tensor> a = make_params(), b = copies_of(a);
  const std::vector<Tensor> initial = copies_of(a);
  const auto decay = optim::AdamWOptions(0.05).betas({0.9, 0.95}).weight_decay(0.1);
  const auto no_decay = optim::AdamWOptions(0.05).betas({0.9, 0.95}).weight_decay(0);
  optim::AdamW eager(two_groups(a, decay, no_decay));
  optim::AdamW compiled_opt(two_groups(b, decay, no_decay));
  CompiledOptimizer step = compile(compiled_opt);
  auto lambda = [](int64_t e) { return 1.0 / (1.0 + static_cast<double>(e)); };
  optim::LambdaLR sched_a(eager, lambda), sched_b(compiled_opt, lambda);
  const int steps = 5;
  const auto grads = make_grads(a, steps);
  std::vector<double> lrs;
  for (int s = 0; s < steps; ++s) {
    lrs.push_back(eager.param_groups()[0].options().get_lr());
    set_grads(a, grads[s], {5});
    set_grads(b, grads[s], {5});
    eager.step();
    step.step();
    sched_a.step();
    sched_b.step();
    expect_params_close(b, a);
  }
  EXPECT_TRUE(b[5].detach().equal(initial[5].detach()));  // no gradient: untouched
  EXPECT_EQ(compiled_opt.state().count(b[5].unsafeGetTensorImpl()), 0u);
  // Element 0 of the decayed [4, 6] parameter and of the 0-d one, against float64.
  auto at = [](const Tensor& t) { return t.detach().reshape({-1})[0].item<double>(); };
  for (auto [i, wd] : {std::pair<size_t, double>{0, 0.1}, {4, 0.0}}) {
    std::vector<double> gs;
    for (int s = 0; s < steps; ++s) gs.push_back(at(grads[s][i]));
    const double want = adamw_reference(at(initial[i]), gs, lrs, 0.9, 0.95, 1e-8, wd);
    EXPECT_NEAR(at(b[i]), want, 1e-5 * (1 + std::abs(want))) << "parameter " << i;
  }
  const compiler::Stats st = compiler::stats();
  EXPECT_EQ(st.captures, 1);
  EXPECT_EQ(st.compiles, 1);
  EXPECT_EQ(st.recompiles, 0);
  expect_state_dicts_close(compiled_opt.state_dict(), eager.state_dict());
}

// Adam with coupled weight decay, amsgrad, maximize and beta1 < 0.5 (lerp's other side).
TEST_F(CompileOptimizer, AdamOptionsMatchEager) {
  const std::vector<Tensor> a = make_params(), b = copies_of(a);
  const auto o = optim::AdamOptions(0.02).betas({0.3, 0.99}).weight_decay(0.05).amsgrad(true);
  auto make = [&](const std::vector<Tensor>& ps) {
    std::vector<optim::OptimizerParamGroup> groups;
    groups.emplace_back(std::vector<Tensor>{ps[0], ps[1], ps[2]},
                        std::make_unique<optim::AdamOptions>(o));
    groups.emplace_back(
        std::vector<Tensor>{ps[3], ps[4], ps[5]},
        std::make_unique<optim::AdamOptions>(optim::AdamOptions(0.01).maximize(true).eps(1e-6)));
    return groups;
  };
  optim::Adam eager(make(a)), compiled_opt(make(b));
  expect_compiled_steps_match(eager, a, compiled_opt, b);
}

// SGD: Nesterov momentum with weight decay, dampened momentum with maximize, plain SGD; the first
// step's buffer is the gradient, as eager's clone.
TEST_F(CompileOptimizer, SgdMatchesEager) {
  const std::vector<Tensor> a = make_params(), b = copies_of(a);
  auto make = [](const std::vector<Tensor>& ps) {
    std::vector<optim::OptimizerParamGroup> groups;
    groups.emplace_back(
        std::vector<Tensor>{ps[0], ps[1]},
        std::make_unique<optim::SGDOptions>(
            optim::SGDOptions(0.1).momentum(0.9).nesterov(true).weight_decay(0.01)));
    groups.emplace_back(std::vector<Tensor>{ps[2], ps[3]},
                        std::make_unique<optim::SGDOptions>(
                            optim::SGDOptions(0.05).momentum(0.5).dampening(0.3).maximize(true)));
    groups.emplace_back(std::vector<Tensor>{ps[4], ps[5]},
                        std::make_unique<optim::SGDOptions>(optim::SGDOptions(0.2)));
    return groups;
  };
  optim::SGD eager(make(a)), compiled_opt(make(b));
  expect_compiled_steps_match(eager, a, compiled_opt, b);
}

// Eager and compiled steps of one optimizer alternate, and a state dict loaded into another
// continues compiled: both as all-eager steps.
TEST_F(CompileOptimizer, MixesWithEagerStepsAndStateDicts) {
  const std::vector<Tensor> a = make_params(), b = copies_of(a);
  const auto o = optim::AdamWOptions(0.03).weight_decay(0.02);
  optim::AdamW eager(a, o), mixed(b, o);
  CompiledOptimizer step = compile(mixed);
  const auto grads = make_grads(a, 6);
  for (int s = 0; s < 4; ++s) {
    set_grads(a, grads[s]);
    set_grads(b, grads[s]);
    eager.step();
    if (s % 2) {
      step.step();
    } else {
      mixed.step();
    }
    expect_params_close(b, a);
  }
  expect_state_dicts_close(mixed.state_dict(), eager.state_dict());
  // A new optimizer over copies of the parameters, from the eager one's state dict.
  const std::vector<Tensor> c = copies_of(a);
  optim::AdamW loaded(c, o);
  loaded.load_state_dict(eager.state_dict());
  CompiledOptimizer loaded_step = compile(loaded);
  for (int s = 4; s < 6; ++s) {
    set_grads(a, grads[s]);
    set_grads(c, grads[s]);
    eager.step();
    loaded_step.step();
    expect_params_close(c, a);
  }
  expect_state_dicts_close(loaded.state_dict(), eager.state_dict());
}

// A parameter that gains a gradient changes the traced structure: one recompile; the learning
// rate and betas changing do not recompile.
TEST_F(CompileOptimizer, RecompilesOnlyWhenTheStructureChanges) {
  const std::vector<Tensor> a = make_params(), b = copies_of(a);
  optim::AdamW eager(a), compiled_opt(b);
  CompiledOptimizer step = compile(compiled_opt);
  const auto grads = make_grads(a, 5);
  for (int s = 0; s < 5; ++s) {
    const std::vector<size_t> without = s < 2 ? std::vector<size_t>{1, 5} : std::vector<size_t>{};
    set_grads(a, grads[s], without);
    set_grads(b, grads[s], without);
    for (auto* opt : {&eager, &compiled_opt}) {
      auto& o = static_cast<optim::AdamWOptions&>(opt->param_groups()[0].options());
      o.lr(0.01 * (s + 1)).betas({0.9 - 0.01 * s, 0.999});
    }
    eager.step();
    step.step();
    expect_params_close(b, a);
  }
  const compiler::Stats st = compiler::stats();
  EXPECT_EQ(st.compiles, 2);
  EXPECT_EQ(st.recompiles, 1);
  ASSERT_EQ(st.recompile_reasons.size(), 1u);
  expect_has(st.recompile_reasons[0], "parameters with gradients");
  // Nothing has a gradient: nothing happens (as eager).
  set_grads(b, grads[0], {0, 1, 2, 3, 4, 5});
  const std::vector<Tensor> before = copies_of(b);
  step.step();
  expect_params_close(b, before);
}

// Note [In-place stores]: the step of parameters of two shapes (interleaved) is two kernels that
// store p, exp_avg and exp_avg_sq themselves; no op of the step runs through dispatch.
TEST_F(CompileOptimizer, OneKernelPerShapeAndNoOpCalls) {
  std::vector<Tensor> ps = {randn({5, 3}), randn({7}), randn({5, 3})};
  for (Tensor& p : ps) {
    p.requires_grad_();
    p.mutable_grad() = randn(p.sizes());
  }
  optim::AdamW opt(ps);
  CompiledOptimizer step = compile(opt);
  step.step();  // compiles
  profiler::profile prof;
  prof.start();
  step.step();
  prof.stop();
  int kernels = 0;
  std::vector<std::string> ops;
  for (const auto& e : prof.events()) {
    if (e.name.rfind("fused", 0) == 0) ++kernels;
    if (e.name.rfind("aten::", 0) == 0 && e.name != "aten::empty") ops.push_back(e.name);
  }
  EXPECT_EQ(kernels, 2);
  EXPECT_TRUE(ops.empty()) << ops.front();
}

// 16-bit parameters (with float32 ones in the same optimizer): each eager op computes in float and
// rounds to the parameter's dtype; the compiled update rounds at the same places, so each step
// gives eager's values up to where a C++ compiler fuses a multiply and an add into one rounding
// (an FMA: the eager kernels and the generated code are compiled separately, the asan preset's
// at -O1) — bit for bit in practice in the default build. Checked to within about one unit in the
// last place of the 16-bit dtype (rtol) and 1e-6 absolute (a moment near zero comes out of a
// cancellation; float16's eps of 1e-8 narrows to 0, so a second moment that underflows gives
// eager's inf or NaN on both sides). AdamW with amsgrad, Adam with coupled weight decay and beta1 <
// 0.5, SGD with Nesterov momentum and with dampened momentum under maximize; each starts from equal
// copies.
TEST_F(CompileOptimizer, SixteenBitParametersMatchEager) {
  for (ScalarType dt : {kBFloat16, kFloat16}) {
    SCOPED_TRACE(dtype_name(dt));
    const double rtol = dt == kBFloat16 ? 1.0 / 128 : 1.0 / 1024;
    std::vector<Tensor> a;
    for (Tensor p : make_params()) a.push_back(p.detach().to(p.dim() == 1 ? kFloat32 : dt));
    for (Tensor& p : a) p.requires_grad_();
    const std::vector<Tensor> b = copies_of(a);
    auto check = [&](optim::Optimizer& eager, optim::Optimizer& compiled_opt) {
      {
        NoGradGuard no_grad;
        for (size_t i = 0; i < a.size(); ++i) b[i].copy_(a[i]);
      }
      CompiledOptimizer step = compile(compiled_opt);
      for (const auto& gs : make_grads(a, 3)) {
        std::vector<Tensor> g;
        for (size_t i = 0; i < a.size(); ++i) g.push_back(gs[i].to(a[i].dtype()));
        set_grads(a, g);
        set_grads(b, g);
        eager.step();
        step();
        for (size_t i = 0; i < a.size(); ++i) {
          if (a[i].dtype() == kFloat32) continue;  // within rounding: the other tests
          EXPECT_NO_THROW(
              testing::assert_close(b[i].detach(), a[i].detach(), rtol, 1e-6, /*equal_nan=*/true))
              << "parameter " << i;
        }
      }
      const StateDict got = compiled_opt.state_dict(), want = eager.state_dict();
      for (const auto& item : want) {
        const Tensor* other = got.find(item.key());
        ASSERT_NE(other, nullptr) << item.key();
        if (item.value().dtype() == dt) {
          EXPECT_NO_THROW(
              testing::assert_close(*other, item.value(), rtol, 1e-6, /*equal_nan=*/true))
              << item.key();
        }
      }
    };
    const auto adamw = optim::AdamWOptions(0.05).weight_decay(0.1).amsgrad(true);
    optim::AdamW e1(a, adamw), c1(b, adamw);
    check(e1, c1);
    const auto adam = optim::AdamOptions(0.02).betas({0.3, 0.99}).weight_decay(0.05);
    optim::Adam e2(a, adam), c2(b, adam);
    check(e2, c2);
    const auto nesterov = optim::SGDOptions(0.1).momentum(0.9).nesterov(true).weight_decay(0.01);
    optim::SGD e3(a, nesterov), c3(b, nesterov);
    check(e3, c3);
    const auto damped = optim::SGDOptions(0.05).momentum(0.5).dampening(0.3).maximize(true);
    optim::SGD e4(a, damped), c4(b, damped);
    check(e4, c4);
  }
}

TEST_F(CompileOptimizer, Errors) {
  const std::vector<Tensor> ps = make_params();
  optim::RMSprop rms(ps);
  expect_has(message_of<NotImplementedError>([&] { compile(rms); }), "RMSprop");
  optim::AdamW adamw(ps);
  CompileOptions dynamic;
  dynamic.dynamic = DynamicSpec{{{0, Dim("n")}}};
  expect_has(message_of<ValueError>([&] { compile(adamw, dynamic); }), "dynamic");
  CompileOptions bad_mode;
  bad_mode.mode = "fastest";
  expect_has(message_of<ValueError>([&] { compile(adamw, bad_mode); }), "mode");
  // The closure runs with gradients enabled and its loss is returned.
  optim::SGD sgd(ps, optim::SGDOptions(0.1));
  CompiledOptimizer sgd_step = compile(sgd);
  const Tensor loss = sgd_step.step([&] {
    EXPECT_TRUE(is_grad_enabled());
    return ps[0].sum();
  });
  EXPECT_TRUE(loss.defined());
}

// ---- Note [In-place stores]

std::shared_ptr<const compiler::CompiledGraph> lowered(const TracedFn& fn,
                                                       const std::vector<Tensor>& inputs) {
  return compiler::lower(make_fx(fn, exact_copies(inputs)));
}

// Runs `fn` eagerly and lowered on copies of `inputs`: outputs and mutated inputs agree.
void expect_matches_eager(const TracedFn& fn, const compiler::CompiledGraph& g,
                          const std::vector<Tensor>& inputs) {
  std::vector<Tensor> want_in = exact_copies(inputs), got_in = exact_copies(inputs);
  const std::vector<Tensor> want = fn(want_in), got = g(got_in);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NO_THROW(testing::assert_close(got[i], want[i]));
  for (size_t i = 0; i < inputs.size(); ++i) {
    SCOPED_TRACE("input " + std::to_string(i));
    EXPECT_NO_THROW(testing::assert_close(got_in[i], want_in[i]));
  }
}

// In-place writes of two inputs, a chained one and a copy_ back, and a read of the new value:
// one kernel that stores both inputs (no call writes them), bumping their versions as eager.
TEST(CompileInPlaceStores, WritesOfInputsFuseIntoOneKernel) {
  const TracedFn fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    xs[0].mul_(xs[2]).add_(xs[1]);
    xs[1].copy_(xs[0] * 2 - xs[1]);
    return {xs[0] + 1};
  };
  const std::vector<Tensor> inputs = {randn({33, 17}), randn({33, 17}), randn({})};
  const auto g = lowered(fn, inputs);
  EXPECT_EQ(g->kernel_names().size(), 1u) << g->source();
  expect_has(g->source(), "graph nodes mul_ add_ mul sub copy_");
  expect_matches_eager(fn, *g, inputs);
  std::vector<Tensor> in = exact_copies(inputs);
  const uint32_t v0 = in[0]._version(), v1 = in[1]._version();
  const std::vector<Tensor> out = (*g)(in);
  EXPECT_EQ(in[0]._version(), v0 + 2);
  EXPECT_EQ(in[1]._version(), v1 + 1);
  // The same tensor passed twice: the kernel would read what it wrote, so the interpreter runs.
  std::vector<Tensor> same = exact_copies(inputs), same_eager = exact_copies(inputs);
  same[1] = same[0];
  same_eager[1] = same_eager[0];
  const std::vector<Tensor> got = (*g)(same), want = fn(same_eager);
  EXPECT_NO_THROW(testing::assert_close(got[0], want[0]));
  EXPECT_NO_THROW(testing::assert_close(same[0], same_eager[0]));
}

// Reads that must see the old or the new values across a fused write: a reduction of the old
// values, a transposed view read after the write, a transposed read before it in the kernel the
// write would join (which then does not fuse), a write of a view of an input.
TEST(CompileInPlaceStores, OrdersReadsAroundWrites) {
  const std::vector<Tensor> sq = {randn({16, 16}), randn({16, 16})};
  const std::vector<TracedFn> fns = {
      [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
        const Tensor s = xs[0].sum();
        xs[0].mul_(2);
        return {s, xs[0] + s};
      },
      [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
        const Tensor v = xs[0].t();
        xs[0].add_(1);
        return {v * 2, xs[0] * 3};
      },
      [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
        const Tensor r = xs[0].t() + xs[1];
        xs[0].add_(1);
        return {r, xs[0]};
      },
      [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
        xs[0].narrow(0, 2, 5).mul_(xs[1].narrow(0, 0, 5));
        xs[1].add_(xs[0]);
        return {xs[1].exp()};
      },
  };
  for (size_t i = 0; i < fns.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const auto g = lowered(fns[i], sq);
    expect_matches_eager(fns[i], *g, sq);
  }
}

// A compiled module's buffers written with copy_ (batch norm's running statistics, attributes of
// the graph) update as eager's do, step after step.
TEST(CompileInPlaceStores, ModuleBufferCopiesMatchEager) {
  nn::BatchNorm1d eager(nn::BatchNorm1dOptions(6).momentum(0.3));
  nn::BatchNorm1d bn(nn::BatchNorm1dOptions(6).momentum(0.3));
  auto compiled = compile(bn);
  NoGradGuard no_grad;
  for (int s = 0; s < 3; ++s) {
    const Tensor x = randn({10, 6});
    EXPECT_NO_THROW(testing::assert_close(compiled(x), eager(x)));
    EXPECT_NO_THROW(testing::assert_close(bn->running_mean, eager->running_mean));
    EXPECT_NO_THROW(testing::assert_close(bn->running_var, eager->running_var));
  }
  EXPECT_EQ(compiler::stats().eager_fallbacks, 0);
}

}  // namespace
}  // namespace ember::test
