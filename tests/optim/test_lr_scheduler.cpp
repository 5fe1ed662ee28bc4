// LR schedulers against the closed forms in torch.optim.lr_scheduler's documentation.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "ember/optim.h"
#include "opdb.h"

namespace ember::optim {
namespace {

using test::expect_errors;
constexpr double kPi = std::numbers::pi;

struct Fixture {
  Tensor p = ember::zeros({2}, kFloat64).requires_grad_();
  Tensor q = ember::zeros({3}, kFloat64).requires_grad_();
  SGD opt{{OptimizerParamGroup({p}),
           OptimizerParamGroup({q}, std::make_unique<SGDOptions>(SGDOptions(0.5)))},
          SGDOptions(0.1).momentum(0.9)};
  double lr(size_t g) const { return opt.param_groups()[g].options().get_lr(); }
};

// Steps `sched` and checks every epoch's lr of both groups (base 0.1 and 0.5) against `expect`.
template <typename S>
void expect_schedule(Fixture& f, S& sched, int epochs,
                     const std::function<double(double, int)>& expect) {
  for (int e = 0; e < epochs; ++e) {
    if (e > 0) sched.step();
    EXPECT_EQ(sched.last_epoch(), e);
    for (size_t g = 0; g < 2; ++g) {
      const double base = g == 0 ? 0.1 : 0.5;
      const double want = expect(base, e);
      EXPECT_NEAR(f.lr(g), want, 1e-12 * std::max(1.0, std::abs(want)))
          << "epoch " << e << " group " << g;
      EXPECT_EQ(sched.get_last_lr()[g], f.lr(g));
    }
  }
}

TEST(LRScheduler, StepLR) {
  Fixture f;
  StepLR s(f.opt, 3, 0.5);
  expect_schedule(f, s, 20, [](double b, int e) { return b * std::pow(0.5, e / 3); });
  EXPECT_EQ(s.base_lrs(), (std::vector<double>{0.1, 0.5}));
}

TEST(LRScheduler, StepLRDefaultGamma) {
  Fixture f;
  StepLR s(f.opt, 2);
  expect_schedule(f, s, 8, [](double b, int e) { return b * std::pow(0.1, e / 2); });
}

TEST(LRScheduler, MultiStepLR) {
  Fixture f;
  MultiStepLR s(f.opt, {9, 2, 5, 5}, 0.5);  // unsorted, with a repeated milestone
  expect_schedule(f, s, 14, [](double b, int e) {
    const int passed = (e >= 2) + 2 * (e >= 5) + (e >= 9);
    return b * std::pow(0.5, passed);
  });
}

TEST(LRScheduler, ExponentialLR) {
  Fixture f;
  ExponentialLR s(f.opt, 0.9);
  expect_schedule(f, s, 25, [](double b, int e) { return b * std::pow(0.9, e); });
}

TEST(LRScheduler, CosineAnnealingLRIncludingPastTMax) {
  Fixture f;
  CosineAnnealingLR s(f.opt, 10, 0.001);
  expect_schedule(f, s, 35, [](double b, int e) {
    return 0.001 + (b - 0.001) * (1 + std::cos(kPi * e / 10)) / 2;
  });
}

TEST(LRScheduler, LinearLRWarmupAndDecay) {
  {
    Fixture f;
    LinearLR s(f.opt, 0.25, 1.0, 4);
    expect_schedule(f, s, 10,
                    [](double b, int e) { return b * (0.25 + 0.75 * std::min(e, 4) / 4.0); });
  }
  {
    Fixture f;
    LinearLR s(f.opt, 1.0, 0.1, 6);
    expect_schedule(f, s, 10,
                    [](double b, int e) { return b * (1.0 + (0.1 - 1.0) * std::min(e, 6) / 6.0); });
  }
  {
    Fixture f;
    LinearLR s(f.opt);  // defaults: 1/3 -> 1 over 5 epochs
    expect_schedule(f, s, 8, [](double b, int e) {
      return b * (1.0 / 3 + (1 - 1.0 / 3) * std::min(e, 5) / 5.0);
    });
  }
}

TEST(LRScheduler, LambdaLR) {
  {
    Fixture f;
    LambdaLR s(f.opt, [](int64_t e) { return 1.0 / static_cast<double>(e + 1); });
    expect_schedule(f, s, 6, [](double b, int e) { return b / (e + 1); });
  }
  Fixture f;
  LambdaLR s(f.opt,
             std::vector<LambdaLR::Lambda>{[](int64_t e) { return 0.5 * static_cast<double>(e); },
                                           [](int64_t e) { return std::pow(0.9, e); }});
  for (int e = 0; e < 5; ++e) {
    if (e) s.step();
    EXPECT_NEAR(f.lr(0), 0.1 * 0.5 * e, 1e-15);
    EXPECT_NEAR(f.lr(1), 0.5 * std::pow(0.9, e), 1e-15);
  }
}

// The 1cycle schedule written out from the documentation.
double cos_anneal(double start, double end, double pct) {
  return end + (start - end) / 2.0 * (std::cos(kPi * pct) + 1);
}

TEST(LRScheduler, OneCycleLRWithSGDMomentum) {
  Fixture f;
  OneCycleLR s(f.opt, OneCycleLROptions(std::vector<double>{1.0, 2.0}).total_steps(20));
  EXPECT_EQ(s.total_steps(), 20);
  for (int step = 0; step <= 20; ++step) {
    if (step) s.step();
    for (size_t g = 0; g < 2; ++g) {
      const double max_lr = g == 0 ? 1.0 : 2.0, initial = max_lr / 25, min_lr = initial / 1e4;
      const double end1 = 0.3 * 20 - 1, end2 = 19;
      double lr, mom;
      if (step <= end1) {
        lr = cos_anneal(initial, max_lr, step / end1);
        mom = cos_anneal(0.95, 0.85, step / end1);
      } else {
        lr = cos_anneal(max_lr, min_lr, (step - end1) / (end2 - end1));
        mom = cos_anneal(0.85, 0.95, (step - end1) / (end2 - end1));
      }
      EXPECT_NEAR(f.lr(g), lr, 1e-12) << "step " << step << " group " << g;
      const auto& o = static_cast<const SGDOptions&>(f.opt.param_groups()[g].options());
      EXPECT_NEAR(o.momentum(), mom, 1e-12) << "step " << step << " group " << g;
    }
  }
  EXPECT_EQ(f.opt.param_groups()[0].initial_lr(), 1.0 / 25);
  expect_errors<ValueError>(
      {{"past the end", [&] { s.step(); },
        "Tried to step 21 times. The specified number of total steps is 20"}});
}

TEST(LRScheduler, OneCycleLRThreePhaseLinearWithAdamBeta1) {
  Tensor p = ember::zeros({2}).requires_grad_();
  Adam opt({p}, AdamOptions(0.01).betas({0.9, 0.99}));
  OneCycleLR s(opt, OneCycleLROptions(0.5)
                        .epochs(2)
                        .steps_per_epoch(5)
                        .three_phase(true)
                        .anneal_strategy("linear")
                        .pct_start(0.4)
                        .div_factor(10)
                        .final_div_factor(100)
                        .base_momentum(0.8)
                        .max_momentum(0.9));
  auto lin = [](double a, double b, double pct) { return (b - a) * pct + a; };
  const double initial = 0.05, max_lr = 0.5, min_lr = 0.0005;
  const double e1 = 0.4 * 10 - 1, e2 = 2 * 0.4 * 10 - 2, e3 = 9;
  for (int step = 0; step < 10; ++step) {
    if (step) s.step();
    double lr, mom;
    if (step <= e1) {
      lr = lin(initial, max_lr, step / e1);
      mom = lin(0.9, 0.8, step / e1);
    } else if (step <= e2) {
      lr = lin(max_lr, initial, (step - e1) / (e2 - e1));
      mom = lin(0.8, 0.9, (step - e1) / (e2 - e1));
    } else {
      lr = lin(initial, min_lr, (step - e2) / (e3 - e2));
      mom = 0.9;
    }
    const auto& o = static_cast<const AdamOptions&>(opt.param_groups()[0].options());
    EXPECT_NEAR(o.lr(), lr, 1e-12) << step;
    EXPECT_NEAR(std::get<0>(o.betas()), mom, 1e-12) << step;
    EXPECT_EQ(std::get<1>(o.betas()), 0.99);
  }
}

TEST(LRScheduler, SequentialLR) {
  Fixture f;
  auto warm = std::make_shared<LinearLR>(f.opt, 0.5, 1.0, 2);
  auto decay = std::make_shared<ExponentialLR>(f.opt, 0.9);
  SequentialLR s(f.opt, {warm, decay}, {4});
  // Warm-up by the closed form of LinearLR, then ExponentialLR restarted at epoch 0.
  expect_schedule(f, s, 10, [](double b, int e) {
    if (e < 4) return b * (0.5 + 0.5 * std::min(e, 2) / 2.0);
    return b * std::pow(0.9, e - 4);
  });
}

TEST(LRScheduler, ReduceLROnPlateau) {
  Fixture f;
  ReduceLROnPlateau s(f.opt, ReduceLROnPlateauOptions().patience(2).factor(0.5).min_lr(0.03));
  const std::vector<double> metrics = {10, 9, 9, 9, 9, 9, 9, 9, 8, 9, 9, 9, 9, 9, 9, 9};
  // The bad-epoch count passes 2 at epochs 4 and 7 (0.025 is clamped to min_lr 0.03), then after
  // the new best at epoch 8, at 11 and 14, where group 0 is already at min_lr.
  const std::vector<double> lr0 = {0.1,  0.1,  0.1,  0.1,  0.05, 0.05, 0.05, 0.03,
                                   0.03, 0.03, 0.03, 0.03, 0.03, 0.03, 0.03, 0.03};
  for (size_t e = 0; e < metrics.size(); ++e) {
    s.step(metrics[e]);
    EXPECT_NEAR(f.lr(0), lr0[e], 1e-15) << "epoch " << e;
    EXPECT_EQ(s.get_last_lr()[0], f.lr(0));
  }
  EXPECT_EQ(s.best(), 8);
  EXPECT_NEAR(f.lr(1), 0.5 * 0.0625, 1e-15);

  // max mode, absolute threshold, cooldown.
  Fixture g;
  ReduceLROnPlateau m(g.opt, ReduceLROnPlateauOptions()
                                 .mode("max")
                                 .threshold_mode("abs")
                                 .threshold(0.5)
                                 .patience(0)
                                 .cooldown(1));
  const std::vector<double> acc = {1, 2, 2.4, 2.4, 2.4, 3.0, 3.4};
  const std::vector<double> want = {0.1, 0.1, 0.01, 0.01, 0.001, 0.001, 1e-4};
  for (size_t e = 0; e < acc.size(); ++e) {
    m.step(acc[e]);
    EXPECT_NEAR(g.lr(0), want[e], 1e-15) << "epoch " << e;
  }
}

TEST(LRScheduler, DeprecatedEpochArgumentUsesTheClosedForm) {
  Fixture f;
  CosineAnnealingLR s(f.opt, 10);
  s.step(7);
  EXPECT_NEAR(f.lr(0), 0.1 * (1 + std::cos(kPi * 0.7)) / 2, 1e-15);
  Fixture g;
  StepLR t(g.opt, 3, 0.5);
  t.step(7);
  EXPECT_NEAR(g.lr(1), 0.5 * 0.25, 1e-15);
}

TEST(LRScheduler, StateDictResumesTheSchedule) {
  Fixture a, b;
  CosineAnnealingLR sa(a.opt, 12, 0.01);
  for (int i = 0; i < 5; ++i) sa.step();
  CosineAnnealingLR sb(b.opt, 12, 0.01);
  b.opt.load_state_dict(a.opt.state_dict());
  sb.load_state_dict(sa.state_dict());
  for (int i = 0; i < 10; ++i) {
    sa.step();
    sb.step();
    EXPECT_EQ(a.lr(0), b.lr(0));
    EXPECT_EQ(sa.get_last_lr(), sb.get_last_lr());
  }
}

TEST(LRScheduler, InvalidArguments) {
  Fixture f;
  Tensor r = ember::zeros({1}).requires_grad_();
  Adagrad adagrad({r});
  SGD other({r});
  expect_errors<ValueError>({
      {"linear start", [&] { LinearLR(f.opt, 0.0); },
       "Starting multiplicative factor expected to be greater than 0 and less or equal to 1."},
      {"linear end", [&] { LinearLR(f.opt, 0.5, 1.5); },
       "Ending multiplicative factor expected to be between 0 and 1."},
      {"lambda count",
       [&] { LambdaLR(f.opt, std::vector<LambdaLR::Lambda>(3, [](int64_t) { return 1.0; })); },
       "Expected 2 lr_lambdas, but got 3"},
      {"step size", [&] { StepLR(f.opt, 0); }, "step_size must be a positive integer"},
      {"one cycle steps", [&] { OneCycleLR(f.opt, OneCycleLROptions(1.0)); },
       "You must define either total_steps OR (epochs AND steps_per_epoch)"},
      {"one cycle total", [&] { OneCycleLR(f.opt, OneCycleLROptions(1.0).total_steps(0)); },
       "Expected positive integer total_steps, but got 0"},
      {"one cycle pct",
       [&] { OneCycleLR(f.opt, OneCycleLROptions(1.0).total_steps(5).pct_start(1.5)); },
       "Expected float between 0 and 1 pct_start, but got 1.5"},
      {"one cycle anneal",
       [&] { OneCycleLR(f.opt, OneCycleLROptions(1.0).total_steps(5).anneal_strategy("exp")); },
       "anneal_strategy must be one of 'cos' or 'linear', instead got exp"},
      {"one cycle max_lr count",
       [&] {
         OneCycleLR(f.opt, OneCycleLROptions(std::vector<double>{1, 2, 3}).total_steps(5));
       },
       "expected 2 values for max_lr, got 3"},
      {"one cycle momentum", [&] { OneCycleLR(adagrad, OneCycleLROptions(1.0).total_steps(5)); },
       "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"},
      {"resume without initial_lr", [&] { StepLR(other, 2, 0.1, 5); },
       "param 'initial_lr' is not specified in param_groups[0] when resuming an optimizer"},
      {"sequential empty", [&] { SequentialLR(f.opt, {}, {}); },
       "expects at least one scheduler, but got no scheduler."},
      {"sequential milestones",
       [&] {
         auto a = std::make_shared<ExponentialLR>(f.opt, 0.9);
         SequentialLR(f.opt, {a}, {3});
       },
       "expects number of schedulers provided to be one more than the number of milestone "
       "points, but got number of schedulers 1 and the number of milestones to be equal to 1"},
      {"sequential optimizer",
       [&] {
         auto a = std::make_shared<ExponentialLR>(other, 0.9);
         SequentialLR(f.opt, {a}, {});
       },
       "expects all schedulers to belong to the same optimizer"},
      {"plateau factor", [&] { ReduceLROnPlateau(f.opt, ReduceLROnPlateauOptions().factor(1.0)); },
       "Factor should be < 1.0."},
      {"plateau mode", [&] { ReduceLROnPlateau(f.opt, ReduceLROnPlateauOptions().mode("avg")); },
       "mode avg is unknown!"},
      {"plateau threshold mode",
       [&] { ReduceLROnPlateau(f.opt, ReduceLROnPlateauOptions().threshold_mode("pct")); },
       "threshold mode pct is unknown!"},
      {"plateau min_lrs",
       [&] { ReduceLROnPlateau(f.opt, ReduceLROnPlateauOptions().min_lrs({0.1})); },
       "expected 2 min_lrs, got 1"},
  });
}

}  // namespace
}  // namespace ember::optim
