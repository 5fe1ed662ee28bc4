// Note [Fuzzer]: random arguments into every op of the op database (OpTest.Fuzz, one per entry)
// and into the graph reader and interpreter (Fuzz.GraphJson). A case starts from one of the
// entry's samples and mutates it: non-contiguous and stride-0 inputs, other shapes (empty,
// 0-d), every dtype, NaN/inf, integer extremes (indices), bad dims and sizes (the non-tensor
// arguments an entry reads back from its arg_inputs), and sometimes a backward through the
// result. A typed ember::Error is a normal outcome; any other exception fails the test, and a
// crash or sanitizer report fails the process.
//
// Every case is a function of (test, base seed, case number). A failure prints them as a line
// for tests/fuzz/seeds/*.seed; the lines there are replayed first on every run (regression
// seeds). scripts/fuzz.sh runs it for a time budget (EMBER_FUZZ_MS per test, EMBER_FUZZ_SEED)
// and records the case a crashed process was running (EMBER_FUZZ_STATE).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "ember/compiler.h"
#include "ember/ember.h"
#include "opdb.h"

namespace ember::test {
namespace {

using json = nlohmann::json;

uint64_t env_u64(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

struct FuzzConfig {
  uint64_t base = env_u64("EMBER_FUZZ_SEED", 0);
  uint64_t cases = env_u64("EMBER_FUZZ_CASES", 3);  // per test without a time budget
  uint64_t ms = env_u64("EMBER_FUZZ_MS", 0);        // per test; 0: run `cases` cases
  const char* state = std::getenv("EMBER_FUZZ_STATE");
};
const FuzzConfig& config() {
  static const FuzzConfig c;
  return c;
}

uint64_t mix(uint64_t h, uint64_t v) {  // splitmix64 step over h ^ v
  uint64_t z = h ^ (v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2));
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
uint64_t case_seed(const std::string& test, uint64_t base, uint64_t n) {
  uint64_t h = 1469598103934665603ull;
  for (char c : test) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return mix(mix(h, base), n);
}

// The seed line of a case, as tests/fuzz/seeds/*.seed hold them: "<test> <base> <case>".
std::string seed_line(const std::string& test, uint64_t base, uint64_t n) {
  return test + " " + std::to_string(base) + " " + std::to_string(n);
}

// Records the running case for scripts/fuzz.sh (a crashed process prints nothing after).
void note_case(const std::string& line) {
  if (!config().state) return;
  std::ofstream(config().state, std::ios::trunc) << line << "\n";
}

// The regression seeds of `test`: (base, case) pairs from tests/fuzz/seeds/*.seed.
std::vector<std::pair<uint64_t, uint64_t>> regression_seeds(const std::string& test) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  namespace fs = std::filesystem;
  const fs::path dir = EMBER_FUZZ_SEEDS;
  if (!fs::is_directory(dir)) return out;
  for (const auto& f : fs::directory_iterator(dir)) {
    if (f.path().extension() != ".seed") continue;
    std::ifstream in(f.path());
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream ls(line);
      std::string name;
      uint64_t base = 0, n = 0;
      if (line.empty() || line[0] == '#' || !(ls >> name >> base >> n)) continue;
      if (name == test) out.emplace_back(base, n);
    }
  }
  return out;
}

struct Counts {
  uint64_t calls = 0, ok = 0, errors = 0, harness = 0;
};

// Runs cases of `test` (its regression seeds, then new ones within the budget); run_case
// returns whether the call succeeded (false: it raised an ember::Error). With
// `harness_out_of_range`, a std::logic_error (out_of_range, length_error) counts as the op
// database entry's own code refusing mutated arguments (its lambdas read them with vector::at and
// build shapes assuming the sample's rank), not as a failure. The library's own std exceptions
// are caught by Fuzz.GraphJson and by the Hardening tests instead.
void fuzz_loop(const std::string& test, const std::function<bool(std::mt19937_64&)>& run_case,
               bool harness_out_of_range = false) {
  Counts counts;
  auto one = [&](uint64_t base, uint64_t n) {
    const std::string line = seed_line(test, base, n);
    note_case(line);
    std::mt19937_64 rng(case_seed(test, base, n));
    ++counts.calls;
    try {
      (run_case(rng) ? counts.ok : counts.errors)++;
    } catch (const Error& e) {
      ++counts.errors;  // a typed error is a normal outcome
      if (std::getenv("EMBER_FUZZ_VERBOSE")) std::printf("  %s: %s\n", line.c_str(), e.what());
    } catch (const std::logic_error& e) {
      if (harness_out_of_range) {
        ++counts.harness;
      } else {
        ADD_FAILURE() << "fuzz case '" << line << "' threw " << typeid(e).name() << ": "
                      << e.what();
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << "fuzz case '" << line << "' threw a non-Ember exception ("
                    << typeid(e).name() << "): " << e.what()
                    << "\n  replay: add the line to tests/fuzz/seeds/regressions.seed";
    }
  };
  for (const auto& [base, n] : regression_seeds(test)) one(base, n);
  const auto start = std::chrono::steady_clock::now();
  const auto budget = std::chrono::milliseconds(config().ms);
  for (uint64_t n = 0;; ++n) {
    if (config().ms ? std::chrono::steady_clock::now() - start >= budget : n >= config().cases) {
      break;
    }
    one(config().base, n);
  }
  // One line per test for scripts/fuzz.sh's totals.
  std::printf("[fuzz] %s calls=%llu ok=%llu errors=%llu harness=%llu\n", test.c_str(),
              static_cast<unsigned long long>(counts.calls),
              static_cast<unsigned long long>(counts.ok),
              static_cast<unsigned long long>(counts.errors),
              static_cast<unsigned long long>(counts.harness));
}

template <typename T>
const T& pick(std::mt19937_64& rng, const std::vector<T>& v) {
  return v[rng() % v.size()];
}

// Integer arguments that stress size arithmetic and range checks. Nothing between 2^8 and 2^40:
// a legal size there would allocate gigabytes; 2^40 and beyond fail allocation or checks.
const std::vector<double>& hostile_ints() {
  static const std::vector<double> v = {
      -1e6, -65, -3, -2, -1, 0, 1, 2, 3, 5, 7, 0x1p40, 0x1p62, -0x1p62, 0x1p63 - 1024, -0x1p63};
  return v;
}

// Usually of `rank` (the entries' code assumes its samples' ranks), sometimes of another.
std::vector<int64_t> random_shape(std::mt19937_64& rng, int64_t rank) {
  std::vector<int64_t> s(rng() % 4 ? rank : static_cast<int64_t>(rng() % 5));
  for (auto& d : s) d = pick<int64_t>(rng, {0, 1, 1, 2, 3, 4, 7});
  return s;
}

// One element of `t` (a fresh copy) set to `v`.
Tensor with_element(const Tensor& t, std::mt19937_64& rng, const Scalar& v) {
  Tensor c = t.clone();
  if (c.numel() == 0) return c;
  c.view({-1})[static_cast<int64_t>(rng() % c.numel())].fill_(v);
  return c;
}

Tensor mutate_tensor(const Tensor& t, std::mt19937_64& rng) {
  switch (rng() % 9) {
    case 0:
      return t.dim() > 0 ? make_noncontiguous(t) : t;
    case 1: {  // stride 0 along one dim: every index reads one element
      if (t.dim() == 0) return t;
      auto strides = t.strides();
      strides[rng() % t.dim()] = 0;
      return t.as_strided(t.sizes(), strides, t.storage_offset());
    }
    case 2: {
      if (!is_floating_point(t.dtype())) return t;
      const double inf = std::numeric_limits<double>::infinity();
      return with_element(t, rng, pick<double>(rng, {std::nan(""), inf, -inf, -0.0, 1e300}));
    }
    case 3:
      return t.to(pick(rng, all_dtypes()));
    case 4:
      return make_tensor(random_shape(rng, t.dim()), t.dtype(), -5, 5, rng());
    case 5:
      return t.dim() >= 2 ? t.transpose(0, t.dim() - 1) : t;
    case 6: {  // empty, same rank
      if (t.dim() == 0) return t;
      auto sizes = t.sizes();
      sizes[rng() % t.dim()] = 0;
      return make_tensor(sizes, t.dtype(), -5, 5, rng());
    }
    case 7: {  // an extreme integer (an index, a count)
      if (!is_integral(t.dtype(), false) || t.dtype() == kUInt8) return t;
      return with_element(t, rng, static_cast<int64_t>(pick<double>(rng, hostile_ints())));
    }
    default:
      return make_tensor(t.sizes(), t.dtype(), -1e4, 1e4, rng());
  }
}

std::string describe(const Tensor& t) {
  std::ostringstream os;
  auto list = [](const std::vector<int64_t>& v) {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
    return out + "]";
  };
  os << dtype_name(t.dtype()) << " sizes " << list(t.sizes()) << " strides " << list(t.strides())
     << " offset " << t.storage_offset();
  if (t.numel() <= 16) os << " values " << t;
  return os.str();
}

bool is_arg_input(const OpInfo& info, size_t i, size_t n) {
  for (int p : info.arg_inputs) {
    if ((p >= 0 ? static_cast<size_t>(p) : n + p) == i) return true;
  }
  return false;
}

// Reads every element of a result through its strides (ASan sees a view past its storage).
void touch(const Tensor& r) {
  if (r.defined() && r.numel() <= (int64_t{1} << 20)) (void)r.contiguous();
}

bool run_op_case(const OpInfo& info, std::mt19937_64& rng) {
  std::vector<ScalarType> dtypes = info.dtypes;
  dtypes.insert(dtypes.end(), info.shape_only_dtypes.begin(), info.shape_only_dtypes.end());
  if (dtypes.empty()) dtypes = all_dtypes();
  const auto samples = info.samples(pick(rng, dtypes));
  if (samples.empty()) return true;
  std::vector<Tensor> in = pick(rng, samples).inputs;
  const size_t n = in.size();
  bool changed = false;
  while (!changed) {
    for (size_t i = 0; i < n; ++i) {
      if (!in[i].defined() || rng() % 2) continue;
      changed = true;
      if (is_arg_input(info, i, n)) {  // a dim, size or flag the entry passes on
        in[i] = with_element(in[i], rng, pick<double>(rng, hostile_ints()));
      } else {
        in[i] = mutate_tensor(in[i], rng);
      }
    }
    changed = changed || n == 0;
  }
  const bool backward = rng() % 4 == 0;
  if (backward) {
    for (size_t i = 0; i < n; ++i) {
      if (in[i].defined() && is_floating_point(in[i].dtype()) && !is_arg_input(info, i, n)) {
        in[i] = in[i].detach().requires_grad_();
      }
    }
  }
  if (std::getenv("EMBER_FUZZ_VERBOSE")) {  // replaying one case: say what it calls
    for (size_t i = 0; i < n; ++i) {
      const Tensor& t = in[i];
      std::printf("  input %zu: %s\n", i, !t.defined() ? "undefined" : describe(t).c_str());
    }
    std::fflush(stdout);
  }
  const Tensor r = info.op(in);
  touch(r);
  if (backward && r.defined() && r.requires_grad() && is_floating_point(r.dtype())) {
    r.sum().backward();
    for (const auto& t : in) {
      if (t.defined()) touch(t.grad());
    }
  }
  return true;
}

TEST_P(OpTest, Fuzz) {
  const OpInfo& info = GetParam();
  fuzz_loop(
      info.name, [&](std::mt19937_64& rng) { return run_op_case(info, rng); },
      /*harness_out_of_range=*/true);
}

// Graphs to mutate: a view, sort (two outputs), an in-place add, reductions, cat and indexing.
std::vector<fx::GraphModule> seed_graphs() {
  std::vector<fx::GraphModule> out;
  const Tensor x = arange(6, kFloat32).reshape({2, 3});
  out.push_back(make_fx(
      [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
        auto [values, indices] = xs[0].t().sort(-1);
        Tensor y = values.clone();
        y.add_(xs[0].t());
        return {y, indices};
      },
      {x}, {.functionalize = false}));
  out.push_back(make_fx(
      [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
        return {(xs[0] * xs[1]).sum(1, true), cat({xs[0], xs[1]}, 0).amax(0)};
      },
      {x, x + 1}));
  out.push_back(make_fx(
      [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
        const Tensor idx = ember::tensor(std::vector<int64_t>{1, 0});
        return {xs[0].index_select(1, idx), xs[0].matmul(xs[0].t()).softmax(-1)};
      },
      {arange(4, kFloat32).reshape({2, 2})}));
  return out;
}

// An input for a placeholder: its recorded sizes, strides, offset and dtype.
Tensor input_for(const fx::ValueMeta& m, std::mt19937_64& rng) {
  std::vector<int64_t> sizes, strides;
  for (const auto& s : m.sizes) sizes.push_back(s.guard_int("fuzz"));
  for (const auto& s : m.strides) strides.push_back(s.guard_int("fuzz"));
  const int64_t offset = m.storage_offset.guard_int("fuzz");
  int64_t extent = offset + 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) extent = 0;
    if (extent) extent += (sizes[d] - 1) * strides[d];
  }
  EMBER_CHECK(extent <= (int64_t{1} << 20), "[fuzz] input too large to make");
  const Tensor base = make_tensor({std::max<int64_t>(extent, 1)}, m.dtype, -5, 5, rng());
  return base.as_strided(sizes, strides, extent ? offset : 0);
}

// Rewrites one random leaf of the JSON (a number, boolean or string) with a hostile value;
// mostly a primitive's parameter, which the reader accepts when its type is right and which
// then reaches the primitive's inference and kernel.
void mutate_json(json& j, std::mt19937_64& rng) {
  std::vector<json*> leaves, params;
  std::function<void(json&, bool)> walk = [&](json& v, bool in_params) {
    if (v.is_object()) {
      for (auto it = v.begin(); it != v.end(); ++it)
        walk(it.value(), in_params || it.key() == "params");
    } else if (v.is_array()) {
      for (auto& c : v) walk(c, in_params);
    } else {
      (in_params ? params : leaves).push_back(&v);
    }
  };
  walk(j["nodes"], false);
  if (!params.empty() && rng() % 4 != 0) leaves = params;
  json& leaf = *leaves[rng() % leaves.size()];
  const json before = leaf;
  if (leaf.is_boolean()) {
    leaf = !leaf.get<bool>();
  } else if (leaf.is_number_integer()) {
    leaf = static_cast<int64_t>(pick<double>(rng, hostile_ints()));
  } else if (leaf.is_number()) {
    leaf = pick<double>(rng, {std::nan(""), 1e300, -1.5, 0.0});
  } else if (leaf.is_string()) {
    leaf = pick<std::string>(rng, {"float16", "int8", "bool", "Sort", "Binary", "add", ""});
  }
  if (std::getenv("EMBER_FUZZ_VERBOSE")) {
    std::printf("  json: %s -> %s\n", before.dump().c_str(), leaf.dump().c_str());
  }
}

bool run_graph_case(std::mt19937_64& rng) {
  static const std::vector<fx::GraphModule> graphs = seed_graphs();
  const fx::GraphModule& gm = graphs[rng() % graphs.size()];
  json j = json::parse(gm.graph().to_json());
  const int mutations = 1 + static_cast<int>(rng() % 3);
  for (int i = 0; i < mutations; ++i) mutate_json(j, rng);
  if (std::getenv("EMBER_FUZZ_VERBOSE")) std::printf("  graph: %s\n", j.dump().c_str());
  const fx::Graph g = fx::Graph::from_json(j.dump());
  const fx::GraphModule module(g, gm.attrs());
  std::vector<Tensor> inputs;
  for (const fx::Node& node : g.nodes()) {
    if (node.kind == fx::NodeKind::Placeholder) inputs.push_back(input_for(node.outputs[0], rng));
  }
  for (const Tensor& r : module(inputs)) touch(r);
  return true;
}

TEST(Fuzz, GraphJson) { fuzz_loop("graph_json", run_graph_case); }

}  // namespace
}  // namespace ember::test
