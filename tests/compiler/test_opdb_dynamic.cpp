// Note [Symbolic shapes] over the whole op database: every sample whose first input has a dim 0
// of size >= 2 is traced with that dim dynamic (Dim("d0", 2, 1 << 20)), and the graph is run at
// two other sizes of it and compared with eager at those sizes. Inputs are grown along dim 0 by
// repeating their rows, so index values into dim 0 stay in range. Other inputs whose dim 0 has
// the same size are tried as the same Dim when input 0 alone cannot trace (a binary op's two
// operands). Arguments the entry reads back with values() (OpInfo::arg_inputs) stay concrete.
// Entries with a grad_op (whose op reads its result's values) trace that instead.
//
// DynamicJointMatchesEager does the same for every differentiable entry's gradient samples through
// the joint forward+backward graph (Note [Symbolic autograd]): the traced inputs require grad, and
// at the two other sizes the joint graph's output and gradients (for a random tangent) must equal
// eager autograd's. Its failures are listed in dynamic_joint_pending().
//
// One dtype per entry (float32 where supported). Entries that cannot trace symbolically yet are
// listed in dynamic_pending() with the reason (the first failing sample's message, shortened, and
// where known the op builder that specialised); entries that specialise in PyTorch too are
// listed in dynamic_specialises(): an output size that needs the input's values, or a sample
// whose dim 0 a static size fixes (a square matrix, channels that the weight fixes, k <= size).
// The test fails when a listed entry starts working, so the lists only shrink; each failing
// entry prints a "[dynamic-fail] name dtype sample: message" line to update them from.
#include <ember/compiler.h>
#include <ember/fx/joint.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <optional>

#include "compiler/lowering.h"
#include "fx_test_util.h"
#include "opdb.h"

namespace ember::test {

// tests/opdb.cpp: the entries op_test_name has named.
std::map<std::string, OpInfo>& registered_op_infos();

namespace {

#include "opdb_dynamic_pending.inc"

// Inputs other than arg_inputs are traced; arg inputs are captured as they are.
bool is_arg(const OpInfo& info, size_t i, size_t n) {
  return std::any_of(info.arg_inputs.begin(), info.arg_inputs.end(), [&](int a) {
    return static_cast<int64_t>(i) == (a < 0 ? static_cast<int64_t>(n) + a : a);
  });
}

// `t` with `m` rows along dim 0: its rows repeated cyclically (a contiguous copy).
Tensor grow(const Tensor& t, int64_t m) {
  const Tensor rows = arange(m, TensorOptions(kInt64)).remainder(t.size(0));
  return t.detach().index_select(0, rows);
}

// The message's first line without the ranges and the suggested fix.
std::string first_line(const std::string& s) {
  std::string r = s.substr(0, s.find('\n'));
  r = r.substr(0, r.find(", which the declared range does not decide"));
  if (const size_t at = r.find("Constraints violated (d0)! "); at != std::string::npos) {
    r = r.substr(at + std::strlen("Constraints violated (d0)! "));
  }
  return r.size() > 160 ? r.substr(0, 157) + "..." : r;
}

struct Outcome {
  bool eligible = false;  // input 0 has a dim 0 of size >= 2
  std::string failure;    // empty: traced and equal to eager at the other sizes
};

struct Sweep {
  std::vector<std::string> failures;  // "sample: why" per failing sample
  int passed = 0, eligible = 0;
};

// Runs `check` (a Sample to an Outcome) over the samples.
template <typename Check>
Sweep sweep(const std::vector<Sample>& samples, Check&& check) {
  Sweep r;
  for (const Sample& s : samples) {
    const Outcome o = check(s);
    if (!o.eligible) continue;
    ++r.eligible;
    if (o.failure.empty()) {
      ++r.passed;
    } else {
      r.failures.push_back(s.desc + ": " + o.failure);
    }
  }
  return r;
}

// Which traced inputs share the dynamic dim: input 0 alone, then every input whose dim 0 is
// as long as input 0's `n` (only when there is one).
std::vector<std::vector<bool>> dim0_variants(const std::vector<Tensor>& example, int64_t n) {
  std::vector<std::vector<bool>> variants = {std::vector<bool>(example.size(), false)};
  variants[0][0] = true;
  std::vector<bool> tied(example.size(), false);
  for (size_t k = 0; k < example.size(); ++k) {
    tied[k] = example[k].defined() && example[k].dim() > 0 && example[k].size(0) == n;
  }
  if (std::count(tied.begin(), tied.end(), true) > 1) variants.push_back(tied);
  return variants;
}

// A sample whose traced inputs (all but OpInfo::arg_inputs) get a dynamic dim 0.
struct Dim0Sample {
  std::vector<size_t> traced;   // their positions in the sample's inputs
  std::vector<Tensor> example;  // the traced inputs
  int64_t n = 0;                // input 0's dim 0
  std::function<std::vector<Tensor>(const std::vector<Tensor>&)> fn;  // traced inputs -> output

  // Dim 0 of the marked inputs as one Dim.
  static DynamicSpec spec(const std::vector<bool>& dynamic) {
    const Dim d0("d0", 2, int64_t{1} << 20);
    DynamicSpec spec;
    for (bool d : dynamic)
      spec.inputs.push_back(d ? std::map<int64_t, Dim>{{0, d0}} : std::map<int64_t, Dim>{});
    return spec;
  }
  // The traced inputs with the marked ones grown to m rows (at n: the contiguous examples at
  // offset 0 that make_fx traces dynamic dims from).
  std::vector<Tensor> at(const std::vector<bool>& dynamic, int64_t m) const {
    std::vector<Tensor> xs = example;
    for (size_t k = 0; k < xs.size(); ++k) {
      if (dynamic[k]) xs[k] = grow(xs[k], m);
    }
    return xs;
  }
};

// Nullopt when input 0 is an argument or has no dim 0 of size >= 2 (not eligible). An entry
// whose op inspects its result with raw reads (chunk's pieces packed with their sizes) has a
// grad_op that returns the same values through ops: that is what a graph can hold.
std::optional<Dim0Sample> dim0_sample(const OpInfo& info, const Sample& s) {
  const size_t n_in = s.inputs.size();
  if (n_in == 0 || is_arg(info, 0, n_in)) return std::nullopt;
  const Tensor& x0 = s.inputs[0];
  if (!x0.defined() || x0.dim() == 0 || x0.size(0) < 2) return std::nullopt;
  Dim0Sample d;
  d.n = x0.size(0);
  for (size_t i = 0; i < n_in; ++i) {
    if (!is_arg(info, i, n_in)) d.traced.push_back(i);
  }
  for (size_t i : d.traced) d.example.push_back(s.inputs[i]);
  const auto& op = info.grad_op ? info.grad_op : info.op;
  d.fn = [&s, &op, traced = d.traced](const std::vector<Tensor>& xs) {
    std::vector<Tensor> all = s.inputs;
    for (size_t k = 0; k < traced.size(); ++k) all[traced[k]] = xs[k];
    return std::vector<Tensor>{op(all)};
  };
  return d;
}

// One dtype per entry keeps the sweeps fast: float32 where supported (symbolic shapes do not
// depend on the dtype; the other dtypes trace fake in FakeTracedMatchesEager).
ScalarType sweep_dtype(const OpInfo& info) {
  const auto& d = info.dtypes;
  if (d.empty() || std::find(d.begin(), d.end(), kFloat32) != d.end()) return kFloat32;
  return d[0];
}

// The sample traced with dim 0 dynamic: the first of dim0_variants that traces. Nullopt when
// the op refuses the example (MatchesReference's business), or when no variant traces (then
// `failure` is the last variant's error: the better fit).
struct Dim0Trace {
  std::vector<bool> dynamic;
  fx::GraphModule gm;
};
std::optional<Dim0Trace> trace_dim0(const Dim0Sample& d, std::string& failure) {
  try {
    d.fn(d.example);
  } catch (const Error&) {
    return std::nullopt;
  }
  for (const std::vector<bool>& dynamic : dim0_variants(d.example, d.n)) {
    try {
      return Dim0Trace{dynamic,
                       make_fx(d.fn, d.at(dynamic, d.n), {.dynamic = Dim0Sample::spec(dynamic)})};
    } catch (const std::exception& e) {
      failure = first_line(e.what());
    }
  }
  return std::nullopt;
}

// One sample of one dtype.
Outcome check_sample(const OpInfo& info, const Sample& s, ScalarType dt) {
  const std::optional<Dim0Sample> d = dim0_sample(info, s);
  if (!d) return {};
  std::string failure;
  std::optional<Dim0Trace> traced = trace_dim0(*d, failure);
  if (!traced) return {!failure.empty(), failure};
  const int64_t n = d->n;
  const auto& fn = d->fn;
  const std::vector<bool>& dynamic = traced->dynamic;
  fx::GraphModule& gm = traced->gm;
  for (int64_t m : {n + 1, 2 * n + 1}) {
    const std::vector<Tensor> xs = d->at(dynamic, m);
    Tensor want;
    try {
      want = fn(xs)[0];
    } catch (const Error&) {
      want = Tensor();  // eager refuses this size: so must the graph
    }
    std::vector<Tensor> got;
    try {
      got = gm(xs);
    } catch (const std::exception& e) {
      if (!want.defined()) continue;
      return {true,
              "size " + std::to_string(m) + ": running the graph failed: " + first_line(e.what())};
    }
    if (!want.defined()) {
      return {true, "size " + std::to_string(m) + ": the graph ran where eager refuses"};
    }
    if (got.size() != 1 || got[0].dtype() != want.dtype()) {
      return {true, "size " + std::to_string(m) + ": the graph's result differs in dtype"};
    }
    auto [rtol, atol] = tolerances(dt);
    auto r =
        close(got[0], want.sizes(), values(want), rtol * info.tol_scale, atol * info.tol_scale);
    if (!r) return {true, "size " + std::to_string(m) + ": " + r.message()};
  }
  return {true, ""};
}

// One gradient sample through the joint graph with its dim 0 dynamic, as check_sample.
Outcome check_joint_sample(const OpInfo& info, const Sample& s) {
  const std::optional<Dim0Sample> d = dim0_sample(info, s);
  if (!d) return {};
  const JointFn& fn = d->fn;
  // The traced floating inputs require grad (fresh leaves at every size).
  auto leaves = [](std::vector<Tensor> xs) {
    for (Tensor& t : xs) {
      if (t.defined() && t.is_floating_point() && t.numel() > 0) t = t.detach().requires_grad_();
    }
    return xs;
  };
  try {
    const Tensor out = fn(leaves(d->example))[0];
    if (!out.requires_grad() || out.numel() == 0) return {};
  } catch (const Error&) {
    return {};
  }
  const int64_t n = d->n;
  Outcome result{true, ""};
  for (const std::vector<bool>& dynamic : dim0_variants(d->example, n)) {
    const DynamicSpec spec = Dim0Sample::spec(dynamic);
    auto at = [&](int64_t m) { return leaves(d->at(dynamic, m)); };
    fx::JointGraph joint;
    try {
      joint = make_joint(fn, at(n), {.dynamic = spec});
    } catch (const std::exception& e) {
      result.failure = first_line(e.what());
      continue;
    }
    for (int64_t m : {n + 1, 2 * n + 1}) {
      const std::string where = "size " + std::to_string(m) + ": ";
      const std::vector<Tensor> xs = at(m);
      std::vector<Tensor> wants;
      for (const Tensor& t : xs) {
        if (t.defined() && t.requires_grad()) wants.push_back(t);
      }
      Tensor out, tangent;
      std::vector<Tensor> want;
      try {
        out = fn(xs)[0];
        tangent = randn(out.sizes(), out.dtype());
        want = autograd::grad({out}, wants, {tangent}, std::nullopt, false, /*allow_unused=*/true);
      } catch (const Error&) {
        out = Tensor();  // eager refuses this size: so must the graph
      }
      std::vector<Tensor> got;
      try {
        got = joint(xs, {out.defined() ? tangent : ones({})});
      } catch (const std::exception& e) {
        if (!out.defined()) continue;
        return {true, where + "running the joint graph failed: " + first_line(e.what())};
      }
      if (!out.defined()) return {true, where + "the joint graph ran where eager refuses"};
      const auto [rtol, atol] = tolerances(out.dtype());
      if (!got[0].allclose(out.detach(), rtol, atol)) return {true, where + "the output differs"};
      for (size_t i = 0, k = 0; i < xs.size(); ++i) {
        if (!xs[i].requires_grad()) continue;
        const Tensor& w = want[k++];
        const Tensor& g = got[1 + i];
        if (!w.defined() && !g.defined()) continue;
        if (!g.defined() || !g.allclose(w.defined() ? w : zeros_like(g), rtol * 10, atol * 10)) {
          return {true,
                  where + "the gradient of input " + std::to_string(d->traced[i]) + " differs"};
        }
      }
    }
    return {true, ""};
  }
  return result;
}

TEST_P(OpTest, DynamicJointMatchesEager) {
  const OpInfo& info = GetParam();
  if (!info.not_differentiable.empty()) return;  // JointGraphMatchesEagerGradients covers them
  manual_seed(0);
  const Sweep r =
      sweep(info.grad_samples ? info.grad_samples() : info.samples(kFloat64), [&](const Sample& s) {
        return s.no_gradcheck.empty() ? check_joint_sample(info, s) : Outcome{};
      });
  const std::vector<std::string>& failures = r.failures;
  const int eligible = r.eligible;
  RecordProperty("dynamic_joint_samples", r.passed);
  // An entry whose forward specialises (dynamic_specialises()) cannot trace jointly either.
  const auto& pending = dynamic_joint_pending();
  const auto& specialises = dynamic_specialises();
  const char* list = nullptr;
  std::string why;
  if (auto it = pending.find(info.name); it != pending.end()) {
    list = "dynamic_joint_pending()";
    why = it->second;
  } else if (auto at = specialises.find(info.name); at != specialises.end()) {
    list = "dynamic_specialises()";
    why = at->second;
  }
  if (eligible == 0) {
    EXPECT_EQ(pending.count(info.name), 0u)
        << info.name << " has no eligible sample: take it off dynamic_joint_pending()";
    return;
  }
  if (!failures.empty()) {
    std::printf("[dynamic-joint-fail] %s %s\n", info.name.c_str(), failures[0].c_str());
  }
  if (list) {
    std::printf("[ dynamic  ] %s: joint graph listed in %s (%s); %zu of %d samples fail\n",
                info.name.c_str(), list, why.c_str(), failures.size(), eligible);
    // (Gradient samples may avoid what specialises a forward sample.)
    if (pending.count(info.name)) {
      EXPECT_FALSE(failures.empty())
          << info.name << " traces jointly now: take it off dynamic_joint_pending()";
    }
    return;
  }
  for (size_t i = 0; i < failures.size() && i < 3; ++i) {
    ADD_FAILURE() << info.name << " " << failures[i];
  }
  if (failures.size() > 3) ADD_FAILURE() << info.name << ": " << failures.size() - 3 << " more";
}

TEST_P(OpTest, DynamicTracedMatchesEager) {
  const OpInfo& info = GetParam();
  const ScalarType dt = sweep_dtype(info);
  const Sweep r =
      sweep(info.samples(dt), [&](const Sample& s) { return check_sample(info, s, dt); });
  const std::vector<std::string>& failures = r.failures;
  const int eligible = r.eligible, traced = r.passed;
  RecordProperty("dynamic_samples", traced);
  const auto& pending = dynamic_pending();
  const auto& specialises = dynamic_specialises();
  const char* list = nullptr;
  auto it = pending.find(info.name);
  if (it != pending.end()) {
    list = "dynamic_pending()";
  } else if ((it = specialises.find(info.name)) != specialises.end()) {
    list = "dynamic_specialises()";
  }
  if (eligible == 0) {
    // Nothing to trace with a dynamic dim 0: counted, and a listed entry is a stale entry.
    std::printf("[ dynamic  ] %s: no sample with a dim 0 of size >= 2\n", info.name.c_str());
    EXPECT_EQ(list, nullptr) << info.name << " has no eligible sample: take it off " << list;
    return;
  }
  // One line per failing entry: the lists above are regenerated from these.
  if (!failures.empty()) {
    std::printf("[dynamic-fail] %s %s %s\n", info.name.c_str(), dtype_name(dt),
                failures[0].c_str());
  }
  if (list) {
    std::printf("[ dynamic  ] %s: pending in %s (%s); %zu of %d samples fail\n", info.name.c_str(),
                list, it->second.c_str(), failures.size(), eligible);
    EXPECT_FALSE(failures.empty()) << info.name << " traces symbolically now: take it off " << list;
    return;
  }
  if (failures.empty()) {
    std::printf("[ dynamic  ] %s: traced symbolically (%d samples)\n", info.name.c_str(), traced);
  }
  for (size_t i = 0; i < failures.size() && i < 3; ++i) {
    ADD_FAILURE() << info.name << " " << dtype_name(dt) << " " << failures[i];
  }
  if (failures.size() > 3) {
    ADD_FAILURE() << info.name << ": " << failures.size() - 3 << " more samples fail";
  }
}

// Generated code with dynamic shapes over the op database (Note [Lowering], Note [Symbolic
// shapes]): each entry's first two eligible samples (float32 where supported), traced with dim 0
// dynamic as DynamicTracedMatchesEager traces them, are lowered together in one lower() call and
// run at two other sizes against eager. Sizes reach the kernels as arguments, views at dynamic
// offsets included.
TEST(LoweringOpdb, DynamicDim0MatchesEager) {
  struct Lowerable {
    std::string what;
    Dim0Sample d;
    std::vector<bool> dynamic;
    fx::GraphModule gm;
    double tol_scale;
  };
  std::deque<Sample> samples;  // Dim0Sample::fn refers to its sample
  std::vector<Lowerable> all;
  for (const auto& [name, info] : registered_op_infos()) {
    const ScalarType dt = sweep_dtype(info);
    int taken = 0;
    for (const Sample& s : info.samples(dt)) {
      if (taken == 2) break;
      const Sample& kept = samples.emplace_back(s);
      std::optional<Dim0Sample> d = dim0_sample(info, kept);
      if (!d) continue;
      std::string failure;  // DynamicTracedMatchesEager lists these
      std::optional<Dim0Trace> t = trace_dim0(*d, failure);
      if (!t) continue;
      all.push_back({name + " " + kept.desc, *d, t->dynamic, std::move(t->gm), info.tol_scale});
      ++taken;
    }
  }
  std::vector<const fx::GraphModule*> gms;
  for (const Lowerable& l : all) gms.push_back(&l.gm);
  const auto lowered = compiler::lower(gms);
  int with_kernels = 0, failures = 0;
  for (const auto& l : lowered) with_kernels += !l->kernel_names().empty();
  std::printf("[ lowering ] %zu dynamic graphs, %d with generated kernels\n", all.size(),
              with_kernels);
  EXPECT_GT(with_kernels, 100);
  for (size_t i = 0; i < all.size(); ++i) {
    const Lowerable& l = all[i];
    for (int64_t m : {l.d.n + 1, 2 * l.d.n + 1}) {
      const std::vector<Tensor> xs = l.d.at(l.dynamic, m);
      Tensor want;
      try {
        want = l.d.fn(exact_copies(xs))[0];
      } catch (const Error&) {
        continue;  // eager refuses this size; DynamicTracedMatchesEager checks the graph does
      }
      std::string why;
      try {
        const std::vector<Tensor> got = (*lowered[i])(exact_copies(xs));
        auto [rtol, atol] = tolerances(want.dtype());
        auto r = got.size() != 1 || got[0].dtype() != want.dtype()
                     ? ::testing::AssertionFailure() << "output count or dtype"
                     : close(got[0], want.sizes(), values(want), 4 * rtol * l.tol_scale,
                             4 * atol * l.tol_scale);
        if (!r) why = r.message();
      } catch (const std::exception& e) {
        why = e.what();
      }
      if (!why.empty() && ++failures <= 10) {
        ADD_FAILURE() << l.what << " at size " << m << ": " << why << "\n"
                      << l.gm.graph().to_string() << lowered[i]->source();
      }
    }
  }
  EXPECT_EQ(failures, 0);
}

}  // namespace
}  // namespace ember::test
