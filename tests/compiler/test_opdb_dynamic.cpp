// Note [Symbolic shapes] over the whole op database: every sample whose first input has a dim 0
// of size >= 2 is traced with that dim dynamic (Dim("d0", 2, 1 << 20)), and the graph is run at
// two other sizes of it and compared with eager at those sizes. Inputs are grown along dim 0 by
// repeating their rows, so index values into dim 0 stay in range. Other inputs whose dim 0 has
// the same size are tried as the same Dim when input 0 alone cannot trace (a binary op's two
// operands). Arguments the entry reads back with values() (OpInfo::arg_inputs) stay concrete.
// Entries with a grad_op (whose op reads its result's values) trace that instead.
//
// One dtype per entry (float32 where supported). Entries that cannot trace symbolically yet are
// listed in dynamic_pending() with the reason (the first failing sample's message, shortened, and
// where known the op builder that specialised); entries that specialise in PyTorch too are
// listed in dynamic_specialises(): an output size that needs the input's values, or a sample
// whose dim 0 a static size fixes (a square matrix, channels that the weight fixes, k <= size).
// The test fails when a listed entry starts working, so the lists only shrink; each failing
// entry prints a "[dynamic-fail] name dtype sample: message" line to update them from.
#include <ember/compiler.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "opdb.h"

namespace ember::test {
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

// One sample of one dtype.
Outcome check_sample(const OpInfo& info, const Sample& s, ScalarType dt) {
  const size_t n_in = s.inputs.size();
  if (n_in == 0 || is_arg(info, 0, n_in)) return {};
  const Tensor& x0 = s.inputs[0];
  if (!x0.defined() || x0.dim() == 0 || x0.size(0) < 2) return {};
  // An entry whose op inspects its result with raw reads (chunk's pieces packed with their sizes)
  // has a grad_op that returns the same values through ops: that is what a graph can hold.
  const auto& op = info.grad_op ? info.grad_op : info.op;
  try {
    op(s.inputs);
  } catch (const Error&) {
    return {};  // a sample the op refuses: MatchesReference's business
  }
  const int64_t n = x0.size(0);
  std::vector<size_t> traced;  // positions in s.inputs of the traced inputs
  for (size_t i = 0; i < n_in; ++i) {
    if (!is_arg(info, i, n_in)) traced.push_back(i);
  }
  auto fn = [&](const std::vector<Tensor>& xs) {
    std::vector<Tensor> all = s.inputs;
    for (size_t k = 0; k < traced.size(); ++k) all[traced[k]] = xs[k];
    return std::vector<Tensor>{op(all)};
  };
  std::vector<Tensor> example;
  for (size_t i : traced) example.push_back(s.inputs[i]);
  const Dim d0("d0", 2, int64_t{1} << 20);
  // Which traced inputs share the dynamic dim: input 0 alone, then every input whose dim 0 is
  // as long (only when there is one).
  std::vector<std::vector<bool>> variants = {std::vector<bool>(traced.size(), false)};
  variants[0][0] = true;
  std::vector<bool> tied(traced.size(), false);
  for (size_t k = 0; k < traced.size(); ++k) {
    const Tensor& t = example[k];
    tied[k] = t.defined() && t.dim() > 0 && t.size(0) == n;
  }
  if (std::count(tied.begin(), tied.end(), true) > 1) variants.push_back(tied);
  Outcome out{true, ""};
  for (const std::vector<bool>& dynamic : variants) {
    DynamicSpec spec;
    for (bool d : dynamic)
      spec.inputs.push_back(d ? std::map<int64_t, Dim>{{0, d0}} : std::map<int64_t, Dim>{});
    // Dynamic dims are traced from contiguous examples at offset 0 (make_fx's rule).
    std::vector<Tensor> ex = example;
    for (size_t k = 0; k < ex.size(); ++k) {
      if (dynamic[k]) ex[k] = grow(ex[k], n);
    }
    fx::GraphModule gm;
    try {
      gm = make_fx(fn, ex, {.dynamic = spec});
    } catch (const std::exception& e) {
      out.failure = first_line(e.what());  // the last variant's: the better fit
      continue;
    }
    for (int64_t m : {n + 1, 2 * n + 1}) {
      std::vector<Tensor> xs;
      for (size_t k = 0; k < example.size(); ++k) {
        xs.push_back(dynamic[k] ? grow(example[k], m) : example[k]);
      }
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
        return {true, "size " + std::to_string(m) +
                          ": running the graph failed: " + first_line(e.what())};
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
  return out;
}

TEST_P(OpTest, DynamicTracedMatchesEager) {
  const OpInfo& info = GetParam();
  // One dtype per entry keeps the sweep fast: float32 where supported (symbolic shapes do not
  // depend on the dtype; the other dtypes trace fake in FakeTracedMatchesEager).
  ScalarType dt = info.dtypes.empty() ? kFloat32 : info.dtypes[0];
  if (std::find(info.dtypes.begin(), info.dtypes.end(), kFloat32) != info.dtypes.end()) {
    dt = kFloat32;
  }
  std::vector<std::string> failures;
  int traced = 0, eligible = 0;
  for (const Sample& s : info.samples(dt)) {
    Outcome o = check_sample(info, s, dt);
    if (!o.eligible) continue;
    ++eligible;
    if (o.failure.empty()) {
      ++traced;
    } else {
      failures.push_back(s.desc + ": " + o.failure);
    }
  }
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

}  // namespace
}  // namespace ember::test
