// Optimizers against plain float64 transcriptions of torch.optim's documented algorithms.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "ember/optim.h"
#include "ember/serialize.h"
#include "opdb.h"

namespace ember::optim {
namespace {

using test::ErrorCase;
using test::expect_errors;
using Vec = std::vector<double>;

// The problem: f(x) = sum_i a_i (x_i - c_i)^2 / 2 + s_i sin(x_i) over two parameters of different
// shapes, so gradients shrink and change sign (amsgrad's max and momentum both matter).
struct Problem {
  std::vector<std::vector<int64_t>> shapes = {{2, 3}, {4}};
  std::vector<Vec> x0 = {{1.5, -2.0, 0.3, 4.0, -0.7, 2.2}, {0.9, -3.1, 1.7, 0.05}};
  Vec grad(const Vec& x, size_t which) const {
    Vec g(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const double a = 0.5 + 0.25 * static_cast<double>(i + which);
      const double c = 0.1 * static_cast<double>(i) - 0.3 * static_cast<double>(which);
      g[i] = a * (x[i] - c) + 0.8 * std::cos(3 * x[i]);
    }
    return g;
  }
};

// The textbook algorithms, one parameter at a time, in double.
struct RefState {
  Vec m, v, vmax, buf, gavg, sum;
  int64_t step = 0;
  bool has_buf = false;
};

struct SgdRef {
  double lr, momentum = 0, dampening = 0, wd = 0;
  bool nesterov = false, maximize = false;
  void operator()(Vec& x, Vec g, RefState& s) const {
    if (s.buf.empty()) s.buf.assign(x.size(), 0);
    for (size_t i = 0; i < x.size(); ++i) {
      double gi = maximize ? -g[i] : g[i];
      gi += wd * x[i];
      if (momentum != 0) {
        s.buf[i] = s.has_buf ? momentum * s.buf[i] + (1 - dampening) * gi : gi;
        gi = nesterov ? gi + momentum * s.buf[i] : s.buf[i];
      }
      x[i] -= lr * gi;
    }
    s.has_buf = true;
  }
};

struct AdamRef {
  double lr, b1 = 0.9, b2 = 0.999, eps = 1e-8, wd = 0;
  bool amsgrad = false, maximize = false, decoupled = false;
  void operator()(Vec& x, Vec g, RefState& s) const {
    if (s.m.empty()) s.m = s.v = s.vmax = Vec(x.size(), 0);
    s.step += 1;
    const double bc1 = 1 - std::pow(b1, static_cast<double>(s.step));
    const double bc2 = 1 - std::pow(b2, static_cast<double>(s.step));
    for (size_t i = 0; i < x.size(); ++i) {
      double gi = maximize ? -g[i] : g[i];
      if (decoupled) {
        x[i] *= 1 - lr * wd;
      } else {
        gi += wd * x[i];
      }
      s.m[i] = b1 * s.m[i] + (1 - b1) * gi;
      s.v[i] = b2 * s.v[i] + (1 - b2) * gi * gi;
      s.vmax[i] = std::max(s.vmax[i], s.v[i]);
      const double vhat = (amsgrad ? s.vmax[i] : s.v[i]) / bc2;
      x[i] -= lr * (s.m[i] / bc1) / (std::sqrt(vhat) + eps);
    }
  }
};

struct RmspropRef {
  double lr, alpha = 0.99, eps = 1e-8, wd = 0, momentum = 0;
  bool centered = false, maximize = false;
  void operator()(Vec& x, Vec g, RefState& s) const {
    if (s.v.empty()) s.v = s.buf = s.gavg = Vec(x.size(), 0);
    for (size_t i = 0; i < x.size(); ++i) {
      double gi = maximize ? -g[i] : g[i];
      gi += wd * x[i];
      s.v[i] = alpha * s.v[i] + (1 - alpha) * gi * gi;
      double vt = s.v[i];
      if (centered) {
        s.gavg[i] = alpha * s.gavg[i] + (1 - alpha) * gi;
        vt -= s.gavg[i] * s.gavg[i];
      }
      const double denom = std::sqrt(vt) + eps;
      if (momentum > 0) {
        s.buf[i] = momentum * s.buf[i] + gi / denom;
        x[i] -= lr * s.buf[i];
      } else {
        x[i] -= lr * gi / denom;
      }
    }
  }
};

struct AdagradRef {
  double lr, lr_decay = 0, wd = 0, init = 0, eps = 1e-10;
  bool maximize = false;
  void operator()(Vec& x, Vec g, RefState& s) const {
    if (s.sum.empty()) s.sum.assign(x.size(), init);
    s.step += 1;
    const double clr = lr / (1 + static_cast<double>(s.step - 1) * lr_decay);
    for (size_t i = 0; i < x.size(); ++i) {
      double gi = maximize ? -g[i] : g[i];
      gi += wd * x[i];
      s.sum[i] += gi * gi;
      x[i] -= clr * gi / (std::sqrt(s.sum[i]) + eps);
    }
  }
};

using RefFn = std::function<void(Vec&, Vec, RefState&)>;
using MakeOpt = std::function<std::unique_ptr<Optimizer>(std::vector<Tensor>)>;

struct Case {
  std::string name;
  MakeOpt make;
  RefFn ref;
};

std::vector<Tensor> make_params(const Problem& pb, ScalarType dtype) {
  std::vector<Tensor> ps;
  for (size_t k = 0; k < pb.shapes.size(); ++k) {
    ps.push_back(test::from_values(pb.shapes[k], pb.x0[k], dtype).requires_grad_());
  }
  return ps;
}

void set_grads(const Problem& pb, std::vector<Tensor>& ps) {
  for (size_t k = 0; k < ps.size(); ++k) {
    ps[k].mutable_grad() =
        test::from_values(pb.shapes[k], pb.grad(test::values(ps[k]), k), ps[k].dtype());
  }
}

// Ten steps of Ember's optimizer and of the reference, compared after every step.
void run_case(const Case& c, ScalarType dtype, double tol) {
  SCOPED_TRACE(c.name + " " + dtype_name(dtype));
  Problem pb;
  auto ps = make_params(pb, dtype);
  auto opt = c.make(ps);
  std::vector<Vec> xs = pb.x0;
  std::vector<RefState> states(xs.size());
  for (int step = 0; step < 10; ++step) {
    set_grads(pb, ps);
    opt->step();
    for (size_t k = 0; k < xs.size(); ++k) {
      // The reference sees the gradient at its own iterate (identical up to rounding).
      c.ref(xs[k], pb.grad(xs[k], k), states[k]);
      auto got = test::values(ps[k]);
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_NEAR(got[i], xs[k][i], tol * (1 + std::abs(xs[k][i])))
            << "step " << step << " param " << k << " element " << i;
      }
    }
  }
  // The parameters moved: the test can fail.
  EXPECT_NE(test::values(ps[0]), pb.x0[0]);
}

template <typename O, typename Opts>
MakeOpt maker(Opts opts) {
  return [opts](std::vector<Tensor> ps) { return std::make_unique<O>(ps, opts); };
}

std::vector<Case> cases() {
  std::vector<Case> out;
  auto sgd = [&](std::string n, SGDOptions o, SgdRef r) { out.push_back({n, maker<SGD>(o), r}); };
  sgd("sgd", SGDOptions(0.1), {0.1});
  sgd("sgd_momentum", SGDOptions(0.1).momentum(0.9), {0.1, 0.9});
  sgd("sgd_dampening", SGDOptions(0.1).momentum(0.9).dampening(0.3), {0.1, 0.9, 0.3});
  sgd("sgd_nesterov", SGDOptions(0.05).momentum(0.8).nesterov(true), {0.05, 0.8, 0, 0, true});
  sgd("sgd_weight_decay", SGDOptions(0.1).weight_decay(0.2), {0.1, 0, 0, 0.2});
  sgd("sgd_all", SGDOptions(0.05).momentum(0.7).weight_decay(0.1).nesterov(true),
      {0.05, 0.7, 0, 0.1, true});
  sgd("sgd_maximize", SGDOptions(0.01).momentum(0.5).maximize(true),
      {0.01, 0.5, 0, 0, false, true});

  auto adam = [&](std::string n, AdamOptions o, AdamRef r) {
    out.push_back({n, maker<Adam>(o), r});
  };
  adam("adam", AdamOptions(0.1), {0.1});
  adam("adam_betas_eps", AdamOptions(0.05).betas({0.8, 0.95}).eps(1e-3), {0.05, 0.8, 0.95, 1e-3});
  adam("adam_weight_decay", AdamOptions(0.1).weight_decay(0.3), {0.1, 0.9, 0.999, 1e-8, 0.3});
  adam("adam_amsgrad", AdamOptions(0.2).amsgrad(true), {0.2, 0.9, 0.999, 1e-8, 0, true});
  adam("adam_amsgrad_wd", AdamOptions(0.2).amsgrad(true).weight_decay(0.1).betas({0.5, 0.6}),
       {0.2, 0.5, 0.6, 1e-8, 0.1, true});
  adam("adam_maximize", AdamOptions(0.1).maximize(true), {0.1, 0.9, 0.999, 1e-8, 0, false, true});

  auto adamw = [&](std::string n, AdamWOptions o, AdamRef r) {
    r.decoupled = true;
    out.push_back({n, maker<AdamW>(o), r});
  };
  adamw("adamw_default_decay", AdamWOptions(0.1), {0.1, 0.9, 0.999, 1e-8, 1e-2});
  adamw("adamw_decay_amsgrad", AdamWOptions(0.1).weight_decay(0.5).amsgrad(true),
        {0.1, 0.9, 0.999, 1e-8, 0.5, true});
  // The for-loop step (fused(false)); the cases above run the fused one (Note [Fused Adam]).
  adam("adam_amsgrad_wd_loop",
       AdamOptions(0.2).amsgrad(true).weight_decay(0.1).betas({0.5, 0.6}).fused(false),
       {0.2, 0.5, 0.6, 1e-8, 0.1, true});
  adam("adam_maximize_loop", AdamOptions(0.1).maximize(true).fused(false),
       {0.1, 0.9, 0.999, 1e-8, 0, false, true});
  adamw("adamw_decay_amsgrad_loop", AdamWOptions(0.1).weight_decay(0.5).amsgrad(true).fused(false),
        {0.1, 0.9, 0.999, 1e-8, 0.5, true});

  auto rms = [&](std::string n, RMSpropOptions o, RmspropRef r) {
    out.push_back({n, maker<RMSprop>(o), r});
  };
  rms("rmsprop", RMSpropOptions(0.01), {0.01});
  rms("rmsprop_alpha", RMSpropOptions(0.02).alpha(0.9).eps(1e-4), {0.02, 0.9, 1e-4});
  rms("rmsprop_momentum", RMSpropOptions(0.01).momentum(0.6), {0.01, 0.99, 1e-8, 0, 0.6});
  rms("rmsprop_centered", RMSpropOptions(0.01).centered(true), {0.01, 0.99, 1e-8, 0, 0, true});
  rms("rmsprop_all", RMSpropOptions(0.01).centered(true).momentum(0.5).weight_decay(0.1),
      {0.01, 0.99, 1e-8, 0.1, 0.5, true});
  rms("rmsprop_maximize", RMSpropOptions(0.01).maximize(true),
      {0.01, 0.99, 1e-8, 0, 0, false, true});

  auto ada = [&](std::string n, AdagradOptions o, AdagradRef r) {
    out.push_back({n, maker<Adagrad>(o), r});
  };
  ada("adagrad", AdagradOptions(0.1), {0.1});
  ada("adagrad_lr_decay", AdagradOptions(0.1).lr_decay(0.2), {0.1, 0.2});
  ada("adagrad_weight_decay", AdagradOptions(0.1).weight_decay(0.3), {0.1, 0, 0.3});
  ada("adagrad_initial_acc", AdagradOptions(0.1).initial_accumulator_value(0.5).eps(1e-3),
      {0.1, 0, 0, 0.5, 1e-3});
  ada("adagrad_maximize", AdagradOptions(0.1).maximize(true), {0.1, 0, 0, 0, 1e-10, true});
  return out;
}

TEST(Optimizers, TenStepsMatchTheDocumentedAlgorithmsInFloat64) {
  for (const auto& c : cases()) run_case(c, kFloat64, 1e-12);
}

TEST(Optimizers, TenStepsMatchInFloat32) {
  for (const auto& c : cases()) run_case(c, kFloat32, 2e-5);
}

using MakeFused = std::function<std::unique_ptr<Optimizer>(std::vector<Tensor>, bool fused)>;

// Note [Fused Adam]: four steps of the fused step and of the for-loop step against each other and
// against the float64 algorithm, on a parameter long enough for the vector loop, its tail and
// several threads' chunks; the version count proves the fused kernel ran.
void expect_fused_matches(const MakeFused& make, const RefFn& ref, ScalarType dt) {
  const int64_t n = 70001;  // > two chunks of the parallel grain, and a vector tail
  Tensor pf = test::make_tensor({n}, dt, -2, 2, 11).requires_grad_();
  Tensor pl = pf.detach().clone().requires_grad_();
  Vec x = test::values(pf);
  RefState st;
  auto fused = make({pf}, true), loop = make({pl}, false);
  const int64_t version = pf._version();
  for (int step = 0; step < 4; ++step) {
    // A gradient that changes sign and size from step to step (amsgrad's max matters).
    const Tensor g = test::make_tensor({n}, dt, -1, 1, 20 + step) * (step % 2 ? 0.1 : 1.0);
    pf.mutable_grad() = g.clone();
    pl.mutable_grad() = g.clone();
    fused->step();
    loop->step();
    ref(x, test::values(g), st);
  }
  EXPECT_EQ(pf._version(), version + 4);
  const Vec got = test::values(pf), want_loop = test::values(pl);
  const double tol_loop = dt == kFloat32 ? 2e-6 : 1e-14;
  const double tol_ref = dt == kFloat32 ? 2e-5 : 1e-12;
  int bad = 0;
  for (int64_t i = 0; i < n && bad < 5; ++i) {
    const bool ok_loop = std::abs(got[i] - want_loop[i]) <= tol_loop * (1 + std::abs(x[i]));
    const bool ok_ref = std::abs(got[i] - x[i]) <= tol_ref * (1 + std::abs(x[i]));
    if (!ok_loop || !ok_ref) {
      ++bad;
      ADD_FAILURE() << "element " << i << ": fused " << got[i] << ", for-loop " << want_loop[i]
                    << ", float64 algorithm " << x[i];
    }
  }
  EXPECT_NE(got, test::values(test::make_tensor({n}, dt, -2, 2, 11)));  // it moved
}

// Over the options that change the arithmetic (lerp's other side with beta1 < 0.5 included).
TEST(FusedAdam, MatchesTheForLoopStepAndTheAlgorithm) {
  struct Opt {
    const char* name;
    AdamRef ref;
  };
  const Opt opts[] = {
      {"adam", {1e-2}},
      {"adam_wd_amsgrad", {5e-3, 0.9, 0.99, 1e-6, 0.1, true}},
      {"adam_beta1_small_maximize", {1e-2, 0.3, 0.9, 1e-8, 0, false, true}},
      {"adamw", {1e-2, 0.9, 0.95, 1e-8, 0.1, false, false, true}},
      {"adamw_amsgrad_maximize", {2e-2, 0.8, 0.999, 1e-8, 0.05, true, true, true}},
  };
  for (ScalarType dt : {kFloat32, kFloat64}) {
    for (const Opt& o : opts) {
      SCOPED_TRACE(std::string(o.name) + " " + dtype_name(dt));
      const AdamRef& r = o.ref;
      auto options = [&](auto o) {
        return o.betas({r.b1, r.b2})
            .eps(r.eps)
            .weight_decay(r.wd)
            .amsgrad(r.amsgrad)
            .maximize(r.maximize);
      };
      expect_fused_matches(
          [&](std::vector<Tensor> ps, bool fused) -> std::unique_ptr<Optimizer> {
            if (r.decoupled)
              return std::make_unique<AdamW>(ps, options(AdamWOptions(r.lr)).fused(fused));
            return std::make_unique<Adam>(ps, options(AdamOptions(r.lr)).fused(fused));
          },
          r, dt);
    }
  }
}

// expect_fused_matches for every (options, reference) case of optimizer O.
template <typename O, typename Options, typename Ref, size_t N>
void expect_cases_fused(const char* name, const std::pair<Options, Ref> (&cases)[N],
                        ScalarType dt) {
  for (size_t k = 0; k < N; ++k) {
    SCOPED_TRACE(std::string(name) + " case " + std::to_string(k) + " " + dtype_name(dt));
    const Options& o = cases[k].first;
    expect_fused_matches(
        [&](std::vector<Tensor> ps, bool fused) -> std::unique_ptr<Optimizer> {
          return std::make_unique<O>(ps, Options(o).fused(fused));
        },
        cases[k].second, dt);
  }
}

// PyTorch's _fused_sgd_ and _fused_adagrad_: plain, momentum (the buffer's first step is the
// gradient), dampening, nesterov, weight decay, maximize; Adagrad's lr decay and accumulator.
TEST(FusedSteps, SgdAndAdagradMatchTheForLoopStepAndTheAlgorithm) {
  const std::pair<SGDOptions, SgdRef> sgds[] = {
      {SGDOptions(0.1), {0.1}},
      {SGDOptions(0.1).momentum(0.9), {0.1, 0.9}},
      {SGDOptions(0.1).momentum(0.9).dampening(0.3).weight_decay(0.2), {0.1, 0.9, 0.3, 0.2}},
      {SGDOptions(0.05).momentum(0.7).weight_decay(0.1).nesterov(true).maximize(true),
       {0.05, 0.7, 0, 0.1, true, true}},
  };
  const std::pair<AdagradOptions, AdagradRef> adagrads[] = {
      {AdagradOptions(0.1), {0.1}},
      {AdagradOptions(0.1).lr_decay(0.2).weight_decay(0.3), {0.1, 0.2, 0.3}},
      {AdagradOptions(0.1).initial_accumulator_value(0.5).eps(1e-3).maximize(true),
       {0.1, 0, 0, 0.5, 1e-3, true}},
  };
  for (ScalarType dt : {kFloat32, kFloat64}) {
    expect_cases_fused<SGD>("sgd", sgds, dt);
    expect_cases_fused<Adagrad>("adagrad", adagrads, dt);
  }
}

TEST(FusedAdam, SixteenBitParametersComputeInFloatWhenAskedFor) {
  // fused(true) on bfloat16 / float16: each value is computed in float from the stored 16-bit
  // ones and rounded once (PyTorch's fused kernel); the default keeps the for-loop's per-op
  // rounding. Both against the float64 algorithm from the rounded start, to 16-bit precision.
  for (ScalarType dt : {kBFloat16, kFloat16}) {
    for (bool fused : {true, false}) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + (fused ? " fused" : " for-loop"));
      Tensor p = test::make_tensor({1000}, dt, -2, 2, 3).requires_grad_();
      Vec x = test::values(p);
      AdamRef ref{1e-2, 0.9, 0.999, 1e-8, 0.1, true, false, true};
      RefState st;
      AdamWOptions o = AdamWOptions(1e-2).weight_decay(0.1).amsgrad(true);
      if (fused) o.fused(true);
      AdamW opt({p}, o);
      for (int step = 0; step < 3; ++step) {
        // Gradients away from 0: the for-loop's float16 ops round eps = 1e-8 and a tiny
        // (1 - beta2) g^2 to 0, and then divide by 0 (as PyTorch's do).
        const Tensor g = test::make_tensor({1000}, dt, 0.2, 1, 30 + step);
        p.mutable_grad() = g;
        opt.step();
        ref(x, test::values(g), st);
      }
      const Vec got = test::values(p);
      const double tol = dt == kBFloat16 ? 1e-2 : 2e-3;
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_NEAR(got[i], x[i], tol * (1 + std::abs(x[i]))) << "element " << i;
      }
    }
  }
}

// fused(true) on 16-bit SGD and Adagrad parameters: the step is computed in float from the
// stored values and each result rounded once, so every element is within half a unit in the last
// place of the exact step (the for-loop rounds after each op).
TEST(FusedSteps, SixteenBitStepsRoundOnce) {
  for (ScalarType dt : {kBFloat16, kFloat16}) {
    const int mantissa = dt == kBFloat16 ? 7 : 10;
    for (int which = 0; which < 2; ++which) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + (which ? " adagrad" : " sgd"));
      Tensor p = test::make_tensor({1000}, dt, 0.5, 2, 3).requires_grad_();
      const Tensor g = test::make_tensor({1000}, dt, -1, 1, 4);
      const Vec x = test::values(p), gv = test::values(g);
      std::unique_ptr<Optimizer> opt;
      if (which) {
        opt = std::make_unique<Adagrad>(std::vector<Tensor>{p},
                                        AdagradOptions(0.1).weight_decay(0.3).fused(true));
      } else {
        opt = std::make_unique<SGD>(std::vector<Tensor>{p},
                                    SGDOptions(0.1).weight_decay(0.3).fused(true));
      }
      p.mutable_grad() = g;
      opt->step();
      const Vec got = test::values(p);
      for (size_t i = 0; i < got.size(); ++i) {
        const double gi = gv[i] + 0.3 * x[i];
        const double exact =
            which ? x[i] - 0.1 * gi / (std::sqrt(gi * gi) + 1e-10) : x[i] - 0.1 * gi;
        const double half_ulp = std::ldexp(0.5, std::ilogb(exact) - mantissa);
        ASSERT_LE(std::abs(got[i] - exact), half_ulp * (1 + 1e-4) + 1e-6 * (1 + std::abs(exact)))
            << "element " << i << ": got " << got[i] << ", exact " << exact;
      }
    }
  }
}

TEST(FusedAdam, WritesTheStateInPlaceAndRefusesIntegerParameters) {
  Tensor p = test::make_tensor({64}, kFloat32, -1, 1, 5).requires_grad_();
  AdamW opt({p}, AdamWOptions(1e-3));
  p.mutable_grad() = ember::ones({64});
  opt.step();
  const auto& st = static_cast<const AdamWParamState&>(*opt.state().begin()->second);
  // exp_avg = 0.1 * g after one step; its version counts the fused kernel's write.
  EXPECT_EQ(test::values(st.exp_avg()), Vec(64, static_cast<double>(0.1f)));
  EXPECT_GE(st.exp_avg()._version(), 1);
  // SGD's momentum buffer starts as the gradient; Adagrad's sum gains g^2; both written in place.
  Tensor ps = test::make_tensor({64}, kFloat32, -1, 1, 6).requires_grad_();
  Tensor pa = test::make_tensor({64}, kFloat32, -1, 1, 7).requires_grad_();
  SGD sgd({ps}, SGDOptions(0.1).momentum(0.9));
  Adagrad ada({pa}, AdagradOptions(0.1).initial_accumulator_value(0.25));
  const Tensor g = test::make_tensor({64}, kFloat32, -1, 1, 8);
  ps.mutable_grad() = g;
  pa.mutable_grad() = g;
  sgd.step();
  ada.step();
  const Tensor& buf =
      static_cast<const SGDParamState&>(*sgd.state().begin()->second).momentum_buffer();
  EXPECT_EQ(test::values(buf), test::values(g));
  const Tensor& sum = static_cast<const AdagradParamState&>(*ada.state().begin()->second).sum();
  const Vec gv = test::values(g), sv = test::values(sum);
  for (size_t i = 0; i < gv.size(); ++i) {
    // One float rounding or two (the kernel may contract the multiply-add).
    EXPECT_FLOAT_EQ(static_cast<float>(sv[i]), 0.25f + static_cast<float>(gv[i] * gv[i]));
  }
  EXPECT_GE(sum._version(), 1);
  // Integer parameters are refused with or without the fused step.
  Tensor ip = ember::zeros({4}, kInt64);
  ip.mutable_grad() = ember::ones({4}, kInt64);
  AdamW iopt({ip}, AdamWOptions(1e-3).fused(true));
  expect_errors<TypeError>({{"integer", [&] { iopt.step(); },
                             "[AdamW] can only optimize floating-point parameters, got int64"}});
}

TEST(Optimizers, ParamGroupsUseTheirOwnOptions) {
  Problem pb;
  auto ps = make_params(pb, kFloat64);
  SGD opt({OptimizerParamGroup({ps[0]}, std::make_unique<SGDOptions>(SGDOptions(0.1))),
           OptimizerParamGroup({ps[1]})},
          SGDOptions(0.01).momentum(0.5));
  ASSERT_EQ(opt.param_groups().size(), 2u);
  EXPECT_EQ(opt.param_groups()[0].options().get_lr(), 0.1);
  EXPECT_EQ(opt.param_groups()[1].options().get_lr(), 0.01);
  std::vector<Vec> xs = pb.x0;
  std::vector<RefState> st(2);
  const SgdRef r0{0.1}, r1{0.01, 0.5};
  for (int step = 0; step < 10; ++step) {
    set_grads(pb, ps);
    opt.step();
    r0(xs[0], pb.grad(xs[0], 0), st[0]);
    r1(xs[1], pb.grad(xs[1], 1), st[1]);
  }
  EXPECT_TRUE(test::close(ps[0], pb.shapes[0], xs[0], 1e-12, 1e-12));
  EXPECT_TRUE(test::close(ps[1], pb.shapes[1], xs[1], 1e-12, 1e-12));

  // add_param_group after construction, with the defaults.
  Tensor z = test::from_values({2}, {1.0, 2.0}).requires_grad_();
  opt.add_param_group(OptimizerParamGroup({z}));
  EXPECT_EQ(opt.param_groups().size(), 3u);
  EXPECT_EQ(opt.size(), 3u);
  z.mutable_grad() = test::from_values({2}, {1.0, 1.0});
  opt.step();
  EXPECT_TRUE(test::close(z, {2}, {0.99, 1.99}, 1e-15, 1e-15));
}

TEST(Optimizers, AddParametersJoinsTheFirstGroup) {
  Tensor p = ember::zeros({2}, kFloat64).requires_grad_();
  Tensor q = ember::zeros({3}, kFloat64).requires_grad_();
  SGD opt({p}, SGDOptions(0.1));
  opt.add_parameters({q});
  ASSERT_EQ(opt.param_groups().size(), 1u);
  EXPECT_EQ(opt.param_groups()[0].params().size(), 2u);
  EXPECT_EQ(opt.parameters().size(), 2u);
  expect_errors<ValueError>({{"again", [&] { opt.add_parameters({p}); },
                              "some parameters appear in more than one parameter group"}});
  EXPECT_EQ(opt.size(), 2u);
  q.mutable_grad() = ember::ones({3}, kFloat64);
  opt.step();
  EXPECT_TRUE(test::close(q, {3}, {-0.1, -0.1, -0.1}, 1e-15, 1e-15));
}

// Optimizers and schedulers save with ember::save(object, path).
static_assert(Stateful<SGD> && Stateful<Adam> && Stateful<AdamW> && Stateful<RMSprop> &&
              Stateful<Adagrad>);
static_assert(Stateful<StepLR> && Stateful<SequentialLR> && Stateful<ReduceLROnPlateau>);

TEST(Optimizers, ParametersWithoutGradAreSkipped) {
  Problem pb;
  auto ps = make_params(pb, kFloat64);
  Adam opt(ps, AdamOptions(0.1));
  ps[0].mutable_grad() = test::from_values(pb.shapes[0], pb.grad(pb.x0[0], 0));
  opt.step();
  EXPECT_EQ(test::values(ps[1]), pb.x0[1]);
  EXPECT_NE(test::values(ps[0]), pb.x0[0]);
  EXPECT_EQ(opt.state().size(), 1u);
  EXPECT_TRUE(opt.state().count(ps[0].unsafeGetTensorImpl()));
}

TEST(Optimizers, ZeroGradBothWays) {
  Problem pb;
  auto ps = make_params(pb, kFloat64);
  SGD opt(ps, SGDOptions(0.1));
  set_grads(pb, ps);
  void* before = ps[0].grad().data_ptr();
  opt.zero_grad(/*set_to_none=*/false);
  ASSERT_TRUE(ps[0].grad().defined());
  EXPECT_EQ(ps[0].grad().data_ptr(), before);  // zeroed in place
  EXPECT_EQ(test::values(ps[0].grad()), Vec(6, 0.0));
  EXPECT_EQ(test::values(ps[1].grad()), Vec(4, 0.0));
  opt.zero_grad();
  EXPECT_FALSE(ps[0].grad().defined());
  EXPECT_FALSE(ps[1].grad().defined());
  opt.step();  // nothing to do
  EXPECT_EQ(test::values(ps[0]), pb.x0[0]);
}

TEST(Optimizers, StepRunsTheClosureWithGradEnabledAndReturnsItsLoss) {
  Problem pb;
  auto ps = make_params(pb, kFloat64);
  SGD opt(ps, SGDOptions(0.1));
  int calls = 0;
  bool grad_enabled = false;
  Tensor loss = opt.step([&] {
    ++calls;
    grad_enabled = is_grad_enabled();
    set_grads(pb, ps);
    return test::from_values({}, {42.0});
  });
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(grad_enabled);
  EXPECT_EQ(loss.item<double>(), 42.0);
  EXPECT_FALSE(opt.step().defined());
  EXPECT_TRUE(is_grad_enabled());
}

// ---- state dicts

std::vector<Tensor> clones(const std::vector<Tensor>& ps) {
  std::vector<Tensor> out;
  for (const auto& p : ps) out.push_back(p.detach().clone().requires_grad_());
  return out;
}

template <typename O, typename Opts>
void expect_resume_identical(Opts opts, bool through_file) {
  Problem pb;
  auto ps = make_params(pb, kFloat64);
  O a(ps, opts);
  for (int i = 0; i < 5; ++i) {
    set_grads(pb, ps);
    a.step();
  }
  auto qs = clones(ps);
  O b(qs, Opts(123.0));  // different options: load_state_dict restores them
  if (through_file) {
    const auto path =
        (std::filesystem::temp_directory_path() / ("ember_opt_" + std::to_string(::getpid())))
            .string();
    ember::save(a, path);
    ember::load(b, path);
    std::filesystem::remove(path);
  } else {
    b.load_state_dict(a.state_dict());
  }
  EXPECT_EQ(b.param_groups()[0].options().get_lr(), opts.lr());
  for (int i = 0; i < 5; ++i) {
    set_grads(pb, ps);
    set_grads(pb, qs);
    a.step();
    b.step();
    for (size_t k = 0; k < ps.size(); ++k) {
      ASSERT_EQ(test::values(ps[k]), test::values(qs[k])) << "step " << i << " param " << k;
    }
  }
}

TEST(OptimizerStateDict, RoundTripContinuesIdentically) {
  for (bool file : {false, true}) {
    SCOPED_TRACE(file ? "through a file" : "in memory");
    expect_resume_identical<SGD>(SGDOptions(0.1).momentum(0.9).nesterov(true), file);
    expect_resume_identical<Adam>(AdamOptions(0.1).amsgrad(true).betas({0.8, 0.9}), file);
    expect_resume_identical<AdamW>(AdamWOptions(0.1).weight_decay(0.1), file);
    expect_resume_identical<RMSprop>(RMSpropOptions(0.01).centered(true).momentum(0.5), file);
    expect_resume_identical<Adagrad>(AdagradOptions(0.1).lr_decay(0.1), file);
  }
}

TEST(OptimizerStateDict, Layout) {
  Problem pb;
  auto ps = make_params(pb, kFloat32);
  Adam opt({OptimizerParamGroup({ps[0]}), OptimizerParamGroup({ps[1]})},
           AdamOptions(0.5).betas({0.8, 0.7}));
  for (int i = 0; i < 3; ++i) {
    set_grads(pb, ps);
    opt.step();
  }
  StateDict sd = opt.state_dict();
  EXPECT_EQ(
      sd.keys(),
      (std::vector<std::string>{
          "param_groups.0.params",   "param_groups.0.lr",           "param_groups.0.betas",
          "param_groups.0.eps",      "param_groups.0.weight_decay", "param_groups.0.amsgrad",
          "param_groups.0.maximize", "param_groups.1.params",       "param_groups.1.lr",
          "param_groups.1.betas",    "param_groups.1.eps",          "param_groups.1.weight_decay",
          "param_groups.1.amsgrad",  "param_groups.1.maximize",     "state.0.step",
          "state.0.exp_avg",         "state.0.exp_avg_sq",          "state.1.step",
          "state.1.exp_avg",         "state.1.exp_avg_sq"}));
  EXPECT_EQ(test::values(sd["param_groups.1.params"]), Vec{1});
  EXPECT_EQ(sd["param_groups.0.lr"].dtype(), kFloat64);
  EXPECT_EQ(sd["param_groups.0.lr"].dim(), 0);
  EXPECT_EQ(test::values(sd["param_groups.0.betas"]), (Vec{0.8, 0.7}));
  EXPECT_EQ(sd["state.1.step"].item<double>(), 3.0);
  EXPECT_EQ(sd["state.0.exp_avg"].dtype(), kFloat32);
  EXPECT_EQ(sd["state.0.exp_avg"].sizes(), (std::vector<int64_t>{2, 3}));
  // A snapshot: later steps do not change it.
  const Vec snap = test::values(sd["state.0.exp_avg"]);
  set_grads(pb, ps);
  opt.step();
  EXPECT_EQ(test::values(sd["state.0.exp_avg"]), snap);
  // Loads into float64 parameters: state follows the parameter dtype.
  auto qs = make_params(pb, kFloat64);
  Adam other({OptimizerParamGroup({qs[0]}), OptimizerParamGroup({qs[1]})});
  other.load_state_dict(sd);
  auto& st = static_cast<AdamParamState&>(*other.state().at(qs[0].unsafeGetTensorImpl()));
  EXPECT_EQ(st.step(), 3);
  EXPECT_EQ(st.exp_avg().dtype(), kFloat64);
  EXPECT_FALSE(st.max_exp_avg_sq().defined());
}

TEST(OptimizerStateDict, MismatchesAreValueErrorsNamingTheKey) {
  Problem pb;
  auto ps = make_params(pb, kFloat64);
  Adam opt(ps, AdamOptions(0.1));
  set_grads(pb, ps);
  opt.step();
  const StateDict good = opt.state_dict();
  auto without = [&](const std::string& key) {
    StateDict sd = good;
    sd.erase(key);
    return sd;
  };
  auto with = [&](const std::string& key, Tensor v) {
    StateDict sd = good;
    sd.insert_or_assign(key, v);
    return sd;
  };
  auto qs = make_params(pb, kFloat64);
  Adam target(qs, AdamOptions(0.3));
  Adam two_groups({OptimizerParamGroup({clones(ps)[0]}), OptimizerParamGroup({clones(ps)[1]})});
  SGD sgd(clones(ps), SGDOptions(0.1).momentum(0.9));
  auto load = [&](Optimizer& o, const StateDict& sd) {
    return [&o, sd] { o.load_state_dict(sd); };
  };
  expect_errors<ValueError>({
      {"missing lr", load(target, without("param_groups.0.lr")), "missing key 'param_groups.0.lr'"},
      {"missing step", load(target, without("state.1.step")), "missing key 'state.1.step'"},
      {"wrong state shape", load(target, with("state.0.exp_avg", ember::zeros({3, 2}, kFloat64))),
       "key 'state.0.exp_avg' has shape [3, 2] but its parameter has shape [2, 3]"},
      {"betas shape", load(target, with("param_groups.0.betas", ember::zeros({3}, kFloat64))),
       "key 'param_groups.0.betas' has shape [3], expected [2]"},
      {"lr not scalar", load(target, with("param_groups.0.lr", ember::zeros({1}, kFloat64))),
       "key 'param_groups.0.lr' has shape [1], expected []"},
      {"unknown param", load(target, with("state.7.exp_avg", ember::zeros({2, 3}, kFloat64))),
       "unexpected key 'state.7.exp_avg'"},
      {"unknown field", load(target, with("state.0.bogus", ember::zeros({2, 3}, kFloat64))),
       "unexpected key 'state.0.bogus'"},
      {"unknown top key", load(target, with("extra", ember::zeros({}))), "unexpected key 'extra'"},
      {"group count", load(two_groups, good), "different number of parameter groups"},
      {"group size",
       load(target, with("param_groups.0.params", test::from_values({1}, {0}, kInt64))),
       "doesn't match the size of optimizer's group"},
      {"repeated ids",
       load(target, with("param_groups.0.params", test::from_values({2}, {0, 0}, kInt64))),
       "repeats or misnumbers parameter 0"},
      {"bad bool", load(target, with("param_groups.0.amsgrad", test::from_values({}, {0.5}))),
       "must be 0 or 1"},
      {"bad step", load(target, with("state.0.step", test::from_values({}, {1.5}))),
       "must hold a non-negative integer"},
      {"invalid option", load(target, with("param_groups.0.lr", test::from_values({}, {-1}))),
       "Invalid learning rate: -1"},
      {"other optimizer's dict", load(sgd, good), "missing key 'param_groups.0.momentum'"},
  });
  // Failed loads changed nothing.
  EXPECT_EQ(target.param_groups()[0].options().get_lr(), 0.3);
  EXPECT_TRUE(target.state().empty());
}

// ---- invalid arguments

TEST(Optimizers, InvalidOptionsRaisePyTorchsMessages) {
  Tensor p = ember::zeros({2}).requires_grad_();
  Tensor q = ember::zeros({2}).requires_grad_();
  expect_errors<ValueError>({
      {"sgd lr", [&] { SGD({p}, SGDOptions(-1)); }, "[SGD] Invalid learning rate: -1"},
      {"sgd momentum", [&] { SGD({p}, SGDOptions(0.1).momentum(-0.5)); },
       "Invalid momentum value: -0.5"},
      {"sgd wd", [&] { SGD({p}, SGDOptions(0.1).weight_decay(-1e-3)); },
       "Invalid weight_decay value: -0.001"},
      {"sgd nesterov dampening",
       [&] { SGD({p}, SGDOptions(0.1).momentum(0.9).dampening(0.1).nesterov(true)); },
       "Nesterov momentum requires a momentum and zero dampening"},
      {"sgd nesterov no momentum", [&] { SGD({p}, SGDOptions(0.1).nesterov(true)); },
       "Nesterov momentum requires a momentum and zero dampening"},
      {"adam lr", [&] { Adam({p}, AdamOptions(-1)); }, "[Adam] Invalid learning rate: -1"},
      {"adam eps", [&] { Adam({p}, AdamOptions().eps(-1e-8)); }, "Invalid epsilon value: -1e-08"},
      {"adam beta0",
       [&] {
         Adam({p}, AdamOptions().betas({1.0, 0.999}));
       },
       "Invalid beta parameter at index 0: 1"},
      {"adam beta1",
       [&] {
         Adam({p}, AdamOptions().betas({0.9, -0.1}));
       },
       "Invalid beta parameter at index 1: -0.1"},
      {"adam nan lr", [&] { Adam({p}, AdamOptions(std::nan(""))); }, "Invalid learning rate: nan"},
      {"adamw wd", [&] { AdamW({p}, AdamWOptions().weight_decay(-1)); },
       "[AdamW] Invalid weight_decay value: -1"},
      {"rmsprop alpha", [&] { RMSprop({p}, RMSpropOptions().alpha(-1)); },
       "Invalid alpha value: -1"},
      {"rmsprop momentum", [&] { RMSprop({p}, RMSpropOptions().momentum(-1)); },
       "Invalid momentum value: -1"},
      {"rmsprop eps", [&] { RMSprop({p}, RMSpropOptions().eps(-1)); }, "Invalid epsilon value: -1"},
      {"adagrad lr_decay", [&] { Adagrad({p}, AdagradOptions().lr_decay(-1)); },
       "Invalid lr_decay value: -1"},
      {"adagrad initial", [&] { Adagrad({p}, AdagradOptions().initial_accumulator_value(-1)); },
       "Invalid initial_accumulator_value value: -1"},
      {"adagrad lr", [&] { Adagrad({p}, AdagradOptions(-0.5)); }, "Invalid learning rate: -0.5"},
      {"empty", [&] { SGD(std::vector<Tensor>{}, SGDOptions(0.1)); },
       "optimizer got an empty parameter list"},
      {"empty groups", [&] { Adam(std::vector<OptimizerParamGroup>{}); },
       "optimizer got an empty parameter list"},
      {"two groups",
       [&] {
         SGD({OptimizerParamGroup({p}), OptimizerParamGroup({q, p})});
       },
       "some parameters appear in more than one parameter group"},
      {"duplicate",
       [&] {
         SGD({p, p});
       },
       "duplicate parameters"},
      {"undefined", [&] { SGD({Tensor()}); }, "undefined tensor"},
      {"group options",
       [&] { SGD({OptimizerParamGroup({p}, std::make_unique<SGDOptions>(SGDOptions(-2)))}); },
       "Invalid learning rate: -2"},
  });
}

TEST(Optimizers, GradientsMustMatchTheirParameter) {
  Tensor p = ember::zeros({2, 2}, kFloat64).requires_grad_();
  SGD opt({p}, SGDOptions(0.1));
  p.mutable_grad() = ember::ones({2}, kFloat64);  // would broadcast silently
  expect_errors<RuntimeError>({{"shape", [&] { opt.step(); }, "has a gradient of shape [2]"}});
  p.mutable_grad() = ember::ones({2, 2}, kFloat32);
  expect_errors<RuntimeError>({{"dtype", [&] { opt.step(); }, "has a gradient of dtype float32"}});
  EXPECT_EQ(test::values(p), Vec(4, 0.0));
}

}  // namespace
}  // namespace ember::optim
