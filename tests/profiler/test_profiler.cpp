// The profiler: events and nesting, key averages and the table, PyTorch's schedule state machine,
// the Chrome trace, threads, memory and errors. Ops that exist now (fill_, zero_, clone, views)
// drive the events; a few test primitives stand in for ops that other families will add.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "dispatch/dispatch.h"
#include "ember/profiler.h"
#include "opdb.h"
#include "profiler/flops.h"
#include "profiler/result.h"

namespace ember {
namespace {

namespace prof = ember::profiler;
using prof::FunctionEvent;
using prof::ProfileOptions;

// An op whose kernel runs another op (kernels are leaves in Ember, but the event tree must hold
// one, as PyTorch's composite ops): an op event opened the way the dispatch observer opens one,
// around a fill_.
void outer_test_op(const Tensor& t) {
  const auto h =
      prof::detail::begin_scope("aten::", "outer_test_op", {}, prof::EventCategory::Op, {});
  t.fill_(3);
  prof::detail::end_scope(h);
}

Tensor make(std::vector<int64_t> shape) { return test::make_tensor(shape, kFloat32); }

std::vector<const FunctionEvent*> named(const prof::profile& p, const std::string& name) {
  std::vector<const FunctionEvent*> out;
  for (const auto& e : p.events()) {
    if (e.trace_name == name) out.push_back(&e);
  }
  return out;
}

const FunctionEvent& only(const prof::profile& p, const std::string& name) {
  auto v = named(p, name);
  EXPECT_EQ(v.size(), 1u) << name;
  if (v.empty()) throw std::runtime_error("no event " + name);
  return *v[0];
}

std::filesystem::path temp_dir(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() /
           ("ember_profiler_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

nlohmann::json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);  // throws on invalid JSON
}

// Every event's children lie within it, on its thread; self <= total.
void expect_consistent_tree(const prof::profile& p) {
  const auto& ev = p.events();
  for (const auto& e : ev) {
    EXPECT_EQ(e.id, &e - ev.data());
    EXPECT_GE(e.cpu_time_total, 0) << e.name;
    EXPECT_GE(e.self_cpu_time_total, 0) << e.name;
    EXPECT_LE(e.self_cpu_time_total, e.cpu_time_total) << e.name;
    double child_sum = 0;
    for (int64_t c : e.children) {
      const auto& ch = ev[static_cast<size_t>(c)];
      EXPECT_EQ(ch.parent, e.id);
      EXPECT_EQ(ch.thread, e.thread);
      EXPECT_EQ(ch.depth, e.depth + 1);
      EXPECT_GE(ch.start_us, e.start_us);
      EXPECT_LE(ch.end_us, e.end_us);
      child_sum += ch.cpu_time_total;
    }
    EXPECT_NEAR(e.self_cpu_time_total, e.cpu_time_total - child_sum, 1e-6);
    if (e.parent < 0) {
      EXPECT_EQ(e.depth, 0);
    }
  }
}

TEST(Profiler, OpsAndScopesNestWithParentLinks) {
  Tensor t = make({2, 3});
  prof::profile p;
  p.start();
  {
    prof::record_function outer("outer");
    t.fill_(1);
    {
      prof::record_function inner("inner");
      Tensor v = t.view({6});
      t.zero_();
    }
    outer_test_op(t);
  }
  p.stop();

  const auto& outer = only(p, "outer");
  const auto& inner = only(p, "inner");
  const auto& view = only(p, "aten::view");
  const auto& op = only(p, "aten::outer_test_op");
  auto fills = named(p, "aten::fill_");
  ASSERT_EQ(fills.size(), 3u);  // fill_, zero_ (a fill_), the fill_ inside outer_test_op
  EXPECT_TRUE(outer.is_user_annotation);
  EXPECT_FALSE(view.is_user_annotation);
  EXPECT_EQ(outer.parent, -1);
  EXPECT_EQ(outer.depth, 0);
  EXPECT_EQ(fills[0]->parent, outer.id);
  EXPECT_EQ(inner.parent, outer.id);
  EXPECT_EQ(view.parent, inner.id);
  EXPECT_EQ(fills[1]->parent, inner.id);
  EXPECT_EQ(fills[1]->depth, 2);
  EXPECT_EQ(op.parent, outer.id);
  EXPECT_EQ(fills[2]->parent, op.id);  // an op inside an op
  EXPECT_EQ(fills[2]->depth, 2);
  EXPECT_EQ(outer.children, (std::vector<int64_t>{fills[0]->id, inner.id, op.id}));
  EXPECT_EQ(inner.children, (std::vector<int64_t>{view.id, fills[1]->id}));
  EXPECT_EQ(p.events().size(), 7u);
  expect_consistent_tree(p);
}

TEST(Profiler, CallCountsAndTotals) {
  Tensor t = make({4});
  prof::profile p(ProfileOptions().activities({prof::ProfilerActivity::CPU}));
  t.fill_(0);  // before start: not recorded
  p.start();
  for (int i = 0; i < 7; ++i) t.fill_(i);
  for (int i = 0; i < 3; ++i) (void)t.view({2, 2});
  p.stop();
  t.fill_(0);  // after stop: not recorded

  auto avg = p.key_averages();
  ASSERT_EQ(avg.size(), 2u);
  const auto* fill = avg.find("aten::fill_");
  const auto* view = avg.find("aten::view");
  ASSERT_TRUE(fill && view);
  EXPECT_EQ(fill->count, 7);
  EXPECT_EQ(view->count, 3);
  double sum = 0, self_sum = 0;
  for (auto* e : named(p, "aten::fill_")) {
    sum += e->cpu_time_total;
    self_sum += e->self_cpu_time_total;
  }
  EXPECT_NEAR(fill->cpu_time_total, sum, 1e-6);
  EXPECT_NEAR(fill->self_cpu_time_total, self_sum, 1e-6);
  EXPECT_NEAR(fill->cpu_time(), sum / 7, 1e-6);
  for (const auto& a : avg) EXPECT_LE(a.self_cpu_time_total, a.cpu_time_total + 1e-9);
  EXPECT_EQ(ember::detail::g_mode_users.load(), 0);  // nothing left in dispatch when stopped
}

TEST(Profiler, RecordShapesAndGroupByInputShape) {
  Tensor a = make({2, 3}), b = make({5});
  prof::profile p(ProfileOptions().record_shapes(true));
  p.start();
  a.fill_(1);
  a.fill_(2);
  b.fill_(3);
  Tensor c = test::make_tensor({5}, kFloat64);
  c.copy_(b);
  p.stop();
  auto fills = named(p, "aten::fill_");
  ASSERT_EQ(fills.size(), 3u);
  EXPECT_EQ(fills[0]->input_shapes, (std::vector<std::vector<int64_t>>{{2, 3}}));
  EXPECT_EQ(fills[0]->input_dtypes, (std::vector<std::string>{"float32"}));
  const auto& copy = only(p, "aten::copy_");  // self first, then src
  EXPECT_EQ(copy.input_shapes, (std::vector<std::vector<int64_t>>{{5}, {5}}));
  EXPECT_EQ(copy.input_dtypes, (std::vector<std::string>{"float64", "float32"}));

  auto flat = p.key_averages();
  EXPECT_EQ(flat.find("aten::fill_")->count, 3);
  EXPECT_TRUE(flat.find("aten::fill_")->input_shapes.empty());
  auto grouped = p.key_averages(/*group_by_input_shape=*/true);
  std::map<std::string, int64_t> counts;
  for (const auto& e : grouped) {
    if (e.key == "aten::fill_") counts[prof::detail::shapes_str(e.input_shapes)] = e.count;
  }
  EXPECT_EQ(counts, (std::map<std::string, int64_t>{{"[[2, 3]]", 2}, {"[[5]]", 1}}));
  std::string table = grouped.table();
  EXPECT_NE(table.find("Input Shapes"), std::string::npos);
  EXPECT_NE(table.find("[[2, 3]]"), std::string::npos);
  EXPECT_EQ(flat.table().find("Input Shapes"), std::string::npos);
}

// ---- the table

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t p = s.find('\n'); p != std::string::npos; p = s.find('\n', start)) {
    out.push_back(s.substr(start, p - start));
    start = p + 1;
  }
  return out;
}

TEST(Profiler, TableColumnsSortingAndRowLimit) {
  Tensor t = make({8});
  prof::profile p(ProfileOptions().profile_memory(true));
  p.start();
  {
    prof::record_function scope("my_scope");
    for (int i = 0; i < 5; ++i) t.fill_(i);
    for (int i = 0; i < 2; ++i) (void)t.view({2, 4});
  }
  p.stop();
  auto avg = p.key_averages();
  std::string table = avg.table("count", 2);
  auto ls = lines(table);
  // separator, header, separator, 2 rows, separator, footer
  ASSERT_EQ(ls.size(), 7u) << table;
  EXPECT_EQ(ls[0], ls[2]);
  EXPECT_EQ(ls[0], ls[5]);
  EXPECT_EQ(ls[0].find_first_not_of("- "), std::string::npos);
  for (const char* h : {"Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total",
                        "CPU time avg", "CPU Mem", "Self CPU Mem", "# of Calls"}) {
    EXPECT_NE(ls[1].find(h), std::string::npos) << h;
  }
  EXPECT_EQ(ls[1].find("Input Shapes"), std::string::npos);
  EXPECT_EQ(ls[1].find("FLOPs"), std::string::npos);
  EXPECT_NE(ls[3].find("aten::fill_"), std::string::npos);  // 5 calls first
  EXPECT_NE(ls[4].find("aten::view"), std::string::npos);   // then 2
  EXPECT_EQ(ls[3].size(), ls[0].size());                    // every cell padded to its column
  EXPECT_EQ(ls[3].substr(ls[3].size() - 14), std::string(11, ' ') + "5  ");  // "# of Calls"
  EXPECT_EQ(ls[6].rfind("Self CPU time total: ", 0), 0u);
  // Names are right-aligned in a column 4 wider than the longest ("aten::fill_": 11 + 4).
  EXPECT_EQ(ls[1].substr(0, 17), "           Name  ");

  // Sorted descending by each key.
  for (std::string key :
       {"cpu_time_total", "self_cpu_time_total", "cpu_time", "count", "cpu_memory_usage",
        "self_cpu_memory_usage", "flops", "self_cuda_time_total", "device_time_total"}) {
    EXPECT_FALSE(avg.table(key).empty()) << key;
  }
  std::string by_self = avg.table("self_cpu_time_total", -1);
  EXPECT_EQ(lines(by_self).size(), 3u + 3 + 2);  // every row with row_limit -1
  std::string top = lines(by_self)[3];
  auto first = std::max_element(avg.begin(), avg.end(), [](auto& a, auto& b) {
    return a.self_cpu_time_total < b.self_cpu_time_total;
  });
  EXPECT_NE(top.find(first->key), std::string::npos);

  // Units and top-level rows.
  std::string ms = avg.table("", 100, 75, 55, 80, "", false, "ms");
  EXPECT_NE(lines(ms)[3].find("ms"), std::string::npos);
  EXPECT_EQ(lines(ms)[3].find("us"), std::string::npos);
  std::string top_only = avg.table("", 100, 75, 55, 80, "", /*top_level_events_only=*/true);
  EXPECT_NE(top_only.find("my_scope"), std::string::npos);
  EXPECT_EQ(top_only.find("aten::fill_"), std::string::npos);
  EXPECT_NE(top_only.find("This report only display top-level ops statistics"), std::string::npos);
  EXPECT_EQ(prof::EventList().table(), "");
}

TEST(Profiler, FlopsColumnAndFormulas) {
  Tensor a = make({2, 3}), b = make({3, 4}), out = make({2, 4});
  prof::profile p(ProfileOptions().with_flops(true).record_shapes(true));
  p.start();
  for (int i = 0; i < 2; ++i) out = a.mm(b);
  out.fill_(0);
  p.stop();
  EXPECT_EQ(named(p, "aten::mm")[0]->flops, 2 * 2 * 3 * 4);
  EXPECT_EQ(only(p, "aten::fill_").flops, 0);
  auto avg = p.key_averages();
  EXPECT_EQ(avg.find("aten::mm")->flops, 96);
  std::string table = avg.table();
  EXPECT_NE(table.find("Total FLOPs"), std::string::npos) << table;
  EXPECT_NE(table.find("96.000"), std::string::npos) << table;
  EXPECT_NE(table.find("--"), std::string::npos) << table;  // fill_ has no formula

  // The formulas, computed by hand.
  auto flops = [](const char* op, std::vector<Tensor> args, std::vector<Tensor> outs = {}) {
    std::vector<const Tensor*> ptrs;
    for (auto& t : args) ptrs.push_back(&t);
    return prof::detail::compute_flops(op, ptrs, outs);
  };
  // Products reach dispatch as the batched Matmul primitive: [B, m, k] @ [B, k, n] (+ self).
  EXPECT_EQ(flops("mm", {make({1, 5, 7}), make({1, 7, 3})}, {make({1, 5, 3})}), 2 * 5 * 7 * 3);
  EXPECT_EQ(flops("addmm", {make({1, 5, 7}), make({1, 7, 3}), make({3})}, {make({1, 5, 3})}),
            2 * 5 * 7 * 3);
  EXPECT_EQ(flops("bmm", {make({4, 5, 7}), make({4, 7, 3})}, {make({4, 5, 3})}), 2 * 4 * 5 * 7 * 3);
  EXPECT_EQ(flops("matmul", {make({12, 5, 6}), make({12, 6, 2})}, {make({12, 5, 2})}),
            2 * 12 * 5 * 6 * 2);
  EXPECT_EQ(flops("mv", {make({1, 5, 6}), make({1, 6, 1})}, {make({1, 5, 1})}), 2 * 5 * 6);
  EXPECT_EQ(flops("dot", {make({1, 1, 9}), make({1, 9, 1})}, {make({1, 1, 1})}), 18);
  // conv2d: N=2, C_in=4, 8x8 input, C_out=6, 3x3 kernel, groups=2 -> weight [6, 2, 3, 3];
  // stride 1, no padding: 6x6 output. 2 * N * H_out * W_out * kh * kw * C_in * C_out / groups.
  EXPECT_EQ(flops("conv2d", {make({2, 4, 8, 8}), make({6, 2, 3, 3})}, {make({2, 6, 6, 6})}),
            2 * 2 * 6 * 6 * 3 * 3 * 4 * 6 / 2);
  // attention: B=2, H=3, L=5, S=7, E=8, Ev=4: q@k^T is 2*B*H*L*S*E, p@v is 2*B*H*L*S*Ev.
  EXPECT_EQ(flops("scaled_dot_product_attention",
                  {make({2, 3, 5, 8}), make({2, 3, 7, 8}), make({2, 3, 7, 4})}),
            2 * 6 * 5 * 7 * 8 + 2 * 6 * 5 * 7 * 4);
  EXPECT_EQ(flops("mul", {make({3, 4}), make({4})}), 12);
  EXPECT_EQ(flops("mm", {make({5}), make({5})}), 0);  // no output given: no estimate
  EXPECT_EQ(flops("sum", {make({5})}), 0);
  auto names = prof::flops_formulas();
  for (const char* op : {"mm", "addmm", "bmm", "baddbmm", "matmul", "mv", "dot", "conv2d",
                         "scaled_dot_product_attention"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), op), names.end()) << op;
  }
}

// ---- the schedule

struct ScheduleCase {
  int64_t wait, warmup, active, repeat, skip_first, skip_first_wait;
  int steps;  // p.step() calls, one op before each
  // on_trace_ready call points: (step_num when called, whether inside stop()), and the steps
  // each window recorded. Derived by hand from torch.profiler.schedule's documentation: skip
  // skip_first steps, then cycles of wait NONE, warmup WARMUP, active RECORD steps, the last
  // RECORD_AND_SAVE; a window opens on entering RECORD and closes (calling on_trace_ready) on
  // leaving RECORD_AND_SAVE or at stop().
  std::vector<std::pair<int64_t, bool>> ready;
  std::vector<std::vector<int64_t>> windows;
  std::vector<prof::ProfilerAction> actions;  // schedule(step) for steps 0, 1, ...
};

TEST(Profiler, ScheduleMatchesPyTorch) {
  using A = prof::ProfilerAction;
  const A N = A::NONE, W = A::WARMUP, R = A::RECORD, S = A::RECORD_AND_SAVE;
  std::vector<ScheduleCase> cases = {
      // The docstring example: skip 1, warm 1, record 2, once.
      {1, 1, 2, 1, 0, 0, 8, {{4, false}}, {{2, 3}}, {N, W, R, S, N, N, N, N, N}},
      // Forever: windows at 2-3 and 6-7; stop() during WARMUP saves nothing.
      {1,
       1,
       2,
       0,
       0,
       0,
       9,
       {{4, false}, {8, false}},
       {{2, 3}, {6, 7}},
       {N, W, R, S, N, W, R, S, N, W}},
      // Every step a window; stop() closes the last one (step 3, no ops in it).
      {0,
       0,
       1,
       0,
       0,
       0,
       3,
       {{1, false}, {2, false}, {3, false}, {3, true}},
       {{0}, {1}, {2}, {3}},
       {S, S, S, S}},
      // skip_first shifts the cycles; repeat=2 ends them.
      {1,
       1,
       1,
       2,
       2,
       0,
       10,
       {{5, false}, {8, false}},
       {{4}, {7}},
       {N, N, N, W, S, N, W, S, N, N, N}},
      // skip_first_wait: the first cycle has no wait steps.
      {2, 1, 1, 2, 1, 1, 10, {{3, false}, {7, false}}, {{2}, {6}}, {N, W, S, N, N, W, S, N, N}},
      // No warmup, several active steps recorded into one window.
      {0, 0, 3, 1, 0, 0, 5, {{3, false}}, {{0, 1, 2}}, {R, R, S, N, N}},
      // stop() in the middle of a window saves it.
      {0, 1, 3, 1, 0, 0, 2, {{2, true}}, {{1, 2}}, {W, R, R}},
  };
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    const auto& c = cases[ci];
    SCOPED_TRACE("case " + std::to_string(ci));
    auto sched =
        prof::schedule(c.wait, c.warmup, c.active, c.repeat, c.skip_first, c.skip_first_wait);
    for (size_t s = 0; s < c.actions.size(); ++s) {
      EXPECT_EQ(sched(static_cast<int64_t>(s)), c.actions[s]) << "step " << s;
    }
    std::vector<std::pair<int64_t, bool>> ready;
    std::vector<std::vector<int64_t>> windows;
    bool in_stop = false;
    Tensor t = make({1});
    prof::profile p(ProfileOptions().schedule(sched).on_trace_ready([&](prof::profile& pr) {
      ready.emplace_back(pr.step_num(), in_stop);
      std::vector<int64_t> steps;
      int64_t ops = 0;
      for (const auto& e : pr.events()) {
        if (e.trace_name.rfind("ProfilerStep#", 0) == 0) {
          EXPECT_EQ(e.name, "ProfilerStep*");
          steps.push_back(std::stoll(e.trace_name.substr(13)));
        }
        if (e.name == "aten::fill_") {
          ++ops;
          ASSERT_GE(e.parent, 0);  // inside its step's scope
          EXPECT_EQ(pr.events()[static_cast<size_t>(e.parent)].name, "ProfilerStep*");
        }
      }
      int64_t expected_ops = 0;
      for (int64_t s : steps) expected_ops += s < c.steps ? 1 : 0;
      EXPECT_EQ(ops, expected_ops);
      windows.push_back(steps);
    }));
    p.start();
    for (int i = 0; i < c.steps; ++i) {
      t.fill_(i);
      p.step();
    }
    in_stop = true;
    p.stop();
    EXPECT_EQ(ready, c.ready);
    EXPECT_EQ(windows, c.windows);
    EXPECT_EQ(ember::detail::g_mode_users.load(), 0);
    EXPECT_TRUE(p.warnings().empty());
  }
}

TEST(Profiler, NoScheduleRecordsEverythingAndReportsAtStop) {
  Tensor t = make({1});
  int calls = 0;
  prof::profile p(ProfileOptions().on_trace_ready([&](prof::profile& pr) {
    ++calls;
    EXPECT_EQ(pr.key_averages().find("aten::fill_")->count, 4);
  }));
  p.start();
  for (int i = 0; i < 4; ++i) {
    t.fill_(i);
    p.step();
  }
  EXPECT_EQ(calls, 0);
  p.stop();
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(named(p, "ProfilerStep#1").empty());  // step markers only with a schedule
}

TEST(Profiler, IncorrectCustomScheduleWarns) {
  int calls = 0;
  prof::profile p(ProfileOptions()
                      .schedule([](int64_t s) {
                        return s == 0 ? prof::ProfilerAction::RECORD : prof::ProfilerAction::NONE;
                      })
                      .on_trace_ready([&](prof::profile&) { ++calls; }));
  p.start();
  p.step();
  p.stop();
  ASSERT_EQ(p.warnings().size(), 1u);
  EXPECT_EQ(p.warnings()[0], "Incorrect schedule: RECORD followed by NONE");
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(p.events().size(), 1u);  // ProfilerStep#0
}

TEST(Profiler, CallbackExceptionPropagatesAndLeavesProfilerStopped) {
  prof::profile p(ProfileOptions().on_trace_ready(
      [](prof::profile&) { throw ValueError("[test] from the callback"); }));
  p.start();
  EXPECT_THROW(p.stop(), ValueError);
  EXPECT_FALSE(p.is_running());
  EXPECT_EQ(ember::detail::g_mode_users.load(), 0);
  prof::profile q;  // another profiler can record afterwards
  q.start();
  q.stop();
}

// ---- the trace

TEST(Profiler, ChromeTraceIsValidJsonWithRequiredFields) {
  Tensor t = make({2, 3});
  prof::profile p(ProfileOptions().record_shapes(true).profile_memory(true));
  p.start();
  {
    prof::record_function scope("scope \"quoted\"\n");
    t.fill_(1);
    Tensor c = t.clone();
    (void)c.transpose(0, 1);
  }
  p.stop();
  auto dir = temp_dir("trace");
  auto path = dir / "trace.json";
  { std::ofstream(path) << "old contents"; }  // replaced atomically
  p.add_metadata("run", "unit \"test\"");
  p.add_metadata_json("config", R"({"lr": 0.1})");
  p.export_chrome_trace(path.string());
  std::vector<std::string> files;
  for (const auto& f : std::filesystem::directory_iterator(dir))
    files.push_back(f.path().filename());
  EXPECT_EQ(files, std::vector<std::string>{"trace.json"});  // no temporary left

  nlohmann::json j = read_json(path);
  EXPECT_EQ(j["run"], "unit \"test\"");
  EXPECT_EQ(j["config"]["lr"], 0.1);
  EXPECT_TRUE(j["baseTimeNanoseconds"].is_number_integer());
  ASSERT_TRUE(j["traceEvents"].is_array());
  std::map<std::string, int> phases;
  std::vector<nlohmann::json> complete;
  for (const auto& e : j["traceEvents"]) {
    for (const char* k : {"name", "ph", "pid", "tid"}) EXPECT_TRUE(e.contains(k)) << e.dump();
    std::string ph = e["ph"];
    ++phases[ph];
    if (ph == "M") continue;
    ASSERT_TRUE(e["ts"].is_number()) << e.dump();
    EXPECT_GE(e["ts"].get<double>(), 0);
    if (ph == "X") {
      EXPECT_TRUE(e.contains("cat") && e.contains("args")) << e.dump();
      ASSERT_TRUE(e["dur"].is_number()) << e.dump();
      EXPECT_GE(e["dur"].get<double>(), 0);
      complete.push_back(e);
    }
    if (ph == "C") {
      EXPECT_TRUE(e["args"]["Allocated"].is_number_integer());
      EXPECT_TRUE(e["args"]["Reserved"].is_number_integer());
    }
  }
  EXPECT_EQ(phases["X"], static_cast<int>(p.events().size()));
  EXPECT_EQ(phases["C"], static_cast<int>(p.memory_records().size()));
  EXPECT_EQ(phases["i"], static_cast<int>(p.memory_records().size()));
  EXPECT_GT(phases["C"], 0);
  // Nesting holds in the trace: children within their parents.
  std::map<int64_t, nlohmann::json> by_id;
  for (const auto& e : complete) by_id[e["args"]["External id"].get<int64_t>()] = e;
  int nested = 0;
  for (const auto& e : complete) {
    if (!e["args"].contains("Parent id")) continue;
    const auto& parent = by_id.at(e["args"]["Parent id"].get<int64_t>());
    EXPECT_GE(e["ts"].get<double>(), parent["ts"].get<double>());
    EXPECT_LE(e["ts"].get<double>() + e["dur"].get<double>(),
              parent["ts"].get<double>() + parent["dur"].get<double>() + 1e-6);
    ++nested;
  }
  EXPECT_EQ(nested, 3);
  for (const auto& e : complete) {
    if (e["name"] == "aten::fill_") {
      EXPECT_EQ(e["cat"], "cpu_op");
      EXPECT_EQ(e["args"]["Input Dims"], nlohmann::json::parse("[[2, 3]]"));
      EXPECT_EQ(e["args"]["Input type"], nlohmann::json::parse(R"(["float32"])"));
    }
    if (e["name"] == "scope \"quoted\"\n") {
      EXPECT_EQ(e["cat"], "user_annotation");
    }
    if (e["name"] == "aten::transpose") {
      EXPECT_EQ(e["args"]["Input Dims"].size(), 1u);
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(Profiler, TensorboardTraceHandlerWritesOneFilePerWindow) {
  auto dir = temp_dir("tb");
  Tensor t = make({1});
  prof::profile p(
      ProfileOptions()
          .schedule(prof::schedule(0, 1, 1, 2))
          .on_trace_ready(prof::tensorboard_trace_handler((dir / "sub").string(), "worker0")));
  p.start();
  for (int i = 0; i < 6; ++i) {
    t.fill_(i);
    p.step();
  }
  p.stop();
  int n = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir / "sub")) {
    std::string name = f.path().filename();
    EXPECT_EQ(name.rfind("worker0.", 0), 0u) << name;
    EXPECT_NE(name.find(".pt.trace.json"), std::string::npos) << name;
    EXPECT_TRUE(read_json(f.path())["traceEvents"].is_array());
    ++n;
  }
  EXPECT_EQ(n, 2);
  std::filesystem::remove_all(dir);
}

// ---- threads, memory, stacks, hooks

TEST(Profiler, EventsFromEveryThreadAreKept) {
  constexpr int kThreads = 4, kOps = 50;
  prof::profile p;
  p.start();
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([i] {
      Tensor t = make({3});
      prof::record_function scope("worker" + std::to_string(i));
      for (int k = 0; k < kOps; ++k) t.fill_(k);
    });
  }
  for (auto& th : threads) th.join();  // the threads have exited before stop()
  Tensor m = make({1});
  m.fill_(0);
  p.stop();
  EXPECT_EQ(p.key_averages().find("aten::fill_")->count, kThreads * kOps + 1);
  std::set<int64_t> tids;
  for (int i = 0; i < kThreads; ++i) {
    const auto& w = only(p, "worker" + std::to_string(i));
    tids.insert(w.thread);
    EXPECT_EQ(w.children.size(), static_cast<size_t>(kOps));
    for (int64_t c : w.children) {
      EXPECT_EQ(p.events()[static_cast<size_t>(c)].name, "aten::fill_");
      EXPECT_EQ(p.events()[static_cast<size_t>(c)].thread, w.thread);
    }
  }
  tids.insert(named(p, "aten::fill_").back()->thread);
  EXPECT_EQ(tids.size(), static_cast<size_t>(kThreads + 1));
  expect_consistent_tree(p);
}

TEST(Profiler, WindowsOpenAndCloseWhileOtherThreadsRunOps) {
  std::atomic<bool> done{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) {
    threads.emplace_back([&done] {
      Tensor t = make({4});
      while (!done.load()) {
        prof::record_function scope("busy");
        t.fill_(1);
        Tensor c = t.clone();
      }
    });
  }
  for (int w = 0; w < 20; ++w) {
    prof::profile p(ProfileOptions().record_shapes(true).profile_memory(true));
    auto t0 = std::chrono::steady_clock::now();
    p.start();
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    p.stop();
    double window_us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    // Only events inside the window, each complete and consistent; scopes cut by the window's
    // edges are dropped, their children kept as top-level events.
    for (const auto& e : p.events()) {
      EXPECT_GE(e.start_us, 0);
      EXPECT_LE(e.end_us, window_us);
    }
    expect_consistent_tree(p);
  }
  done = true;
  for (auto& th : threads) th.join();
  EXPECT_EQ(ember::detail::g_mode_users.load(), 0);
}

TEST(Profiler, MemoryEventsBalance) {
  Tensor before = make({64});
  prof::profile p(ProfileOptions().profile_memory(true));
  Tensor kept;
  p.start();
  {
    prof::record_function outer("outer");
    {
      prof::record_function inner("inner");
      Tensor tmp = make({1000});  // allocated and freed inside `inner`
      kept = tmp.clone();         // allocated inside `inner`, still alive at stop
    }
    before = Tensor();  // frees memory allocated before the window
  }
  p.stop();
  const auto& mem = p.memory_records();
  ASSERT_GE(mem.size(), 4u);
  std::map<uintptr_t, int64_t> live;  // allocations made in the window and not yet freed
  int64_t freed_outside = 0;
  for (const auto& m : mem) {
    if (m.bytes > 0) {
      EXPECT_EQ(live.count(m.addr), 0u);
      live[m.addr] = m.bytes;
    } else {
      auto it = live.find(m.addr);
      if (it == live.end()) {
        freed_outside += m.bytes;  // allocated before the window
      } else {
        EXPECT_EQ(it->second, -m.bytes);
        live.erase(it);
      }
    }
  }
  // Every allocation of the window was freed, except the one still alive: `kept`.
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live.begin()->first, reinterpret_cast<uintptr_t>(kept.data_ptr()));
  EXPECT_LT(freed_outside, 0);

  const auto& outer = only(p, "outer");
  const auto& inner = only(p, "inner");
  int64_t inner_sum = 0, outer_self = 0;
  for (const auto& m : mem) {
    if (m.parent == inner.id) inner_sum += m.bytes;
    if (m.parent == outer.id) outer_self += m.bytes;
  }
  EXPECT_EQ(inner.self_cpu_memory_usage, inner_sum);
  EXPECT_EQ(inner.self_cpu_memory_usage, live.begin()->second);  // tmp freed, kept alive
  EXPECT_EQ(outer.self_cpu_memory_usage, outer_self);
  EXPECT_EQ(outer.self_cpu_memory_usage, freed_outside);
  EXPECT_EQ(outer.cpu_memory_usage, outer.self_cpu_memory_usage + inner.cpu_memory_usage);
  auto avg = p.key_averages();
  EXPECT_EQ(avg.find("inner")->self_cpu_memory_usage, inner_sum);
  std::string table = avg.table("self_cpu_memory_usage");
  EXPECT_NE(table.find("CPU Mem"), std::string::npos);
  EXPECT_NE(table.find(" KB"), std::string::npos) << table;

  // Nothing is observed once stopped.
  Tensor after = make({10});
  EXPECT_EQ(p.memory_records().size(), mem.size());
}

TEST(Profiler, WithStackNamesTheCallers) {
  Tensor t = make({2});
  prof::profile p(ProfileOptions().with_stack(true));
  p.start();
  t.fill_(1);
  { prof::record_function scope("scope"); }
  p.stop();
  for (const auto& e : p.events()) {
    ASSERT_FALSE(e.stack.empty()) << e.name;
    for (const auto& f : e.stack) {
      EXPECT_EQ(f.find("ember::profiler::detail"), std::string::npos) << f;  // internals skipped
      EXPECT_EQ(f.find("dispatch_with_modes"), std::string::npos) << f;
    }
  }
  // The innermost caller is this test (the executable exports no names: module+offset).
  const auto& fill = only(p, "aten::fill_");
  EXPECT_TRUE(fill.stack[0].find("ember_tests") != std::string::npos ||
              fill.stack[0].find("WithStackNamesTheCallers") != std::string::npos)
      << fill.stack[0];
  auto by_stack = p.key_averages(false, 1);
  EXPECT_EQ(by_stack[0].stack.size(), 1u);
  EXPECT_NE(by_stack.table().find("Source Location"), std::string::npos);
}

TEST(Profiler, HooksForLaterSubsystems) {
  prof::profile p;
  p.start();
  { auto bw = prof::record_function::backward_node("MulBackward0"); }
  {
    auto opt = prof::record_function::optimizer_step("SGD");
    auto zero = prof::record_function::optimizer_zero_grad("SGD");
  }
  { auto data = prof::record_function::data_loader_next(); }
  prof::record_function early("ended early");
  early.end();
  early.end();
  p.stop();
  const auto& bw = only(p, "autograd::engine::evaluate_function: MulBackward0");
  EXPECT_FALSE(bw.is_user_annotation);  // an op event, as in PyTorch
  EXPECT_TRUE(only(p, "Optimizer.step#SGD.step").is_user_annotation);
  EXPECT_EQ(only(p, "Optimizer.zero_grad#SGD.zero_grad").parent,
            only(p, "Optimizer.step#SGD.step").id);
  only(p, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  only(p, "ended early");
}

TEST(Profiler, ScopesCrossingTheWindowAreDropped) {
  prof::profile p;
  auto before = std::make_unique<prof::record_function>("begun before start");
  p.start();
  before.reset();
  prof::record_function after("ends after stop");
  { prof::record_function inside("inside"); }
  p.stop();
  EXPECT_EQ(p.events().size(), 1u);
  EXPECT_EQ(p.events()[0].name, "inside");
  // No window open: record_function does nothing.
  prof::record_function idle("idle");
}

TEST(Profiler, DestroyedWhileRunningUnhooks) {
  {
    prof::profile p(ProfileOptions().profile_memory(true));
    p.start();
    EXPECT_EQ(ember::detail::g_mode_users.load(), 1);
  }
  EXPECT_EQ(ember::detail::g_mode_users.load(), 0);
  prof::profile q;
  { prof::ProfileGuard g(q); }  // the window of p was released
  EXPECT_TRUE(q.events().empty());
}

TEST(Profiler, Errors) {
  using prof::ProfilerActivity;
  test::expect_errors<NotImplementedError>({
      {"CUDA activity",
       [] {
         prof::profile p(
             ProfileOptions().activities({ProfilerActivity::CPU, ProfilerActivity::CUDA}));
       },
       "[profiler] ProfilerActivity::CUDA is not available"},
      {"use_device cuda", [] { prof::profile p(ProfileOptions().use_device("cuda")); },
       "[profiler]"},
      {"gzip trace",
       [] {
         prof::profile p;
         p.start();
         p.stop();
         p.export_chrome_trace("/tmp/x.json.gz");
       },
       "[profiler]"},
  });
  test::expect_errors<ValueError>({
      {"use_device foo", [] { prof::profile p(ProfileOptions().use_device("foo")); },
       "[profiler] The foo is not a valid device option"},
      {"unknown sort key",
       [] {
         prof::profile p;
         p.start();
         p.stop();
         (void)p.key_averages().table("cpu_time_totl");
       },
       "[profiler] table: unknown sort_by key 'cpu_time_totl'"},
      {"bad time unit", [] { (void)prof::EventList().table("", 10, 75, 55, 80, "", false, "min"); },
       "[profiler]"},
      {"bad metadata json", [] { prof::profile().add_metadata_json("k", "{oops"); }, "[profiler]"},
  });
  test::expect_errors<RuntimeError>({
      {"stop without start", [] { prof::profile().stop(); }, "[profiler] stop() called"},
      {"step without start", [] { prof::profile().step(); }, "[profiler] step() called"},
      {"start twice",
       [] {
         prof::profile p;
         p.start();
         p.start();
       },
       "[profiler] start() called"},
      {"results before any window", [] { (void)prof::profile().key_averages(); }, "[profiler]"},
      {"results while recording",
       [] {
         prof::profile p;
         p.start();
         (void)p.events();
       },
       "Profiler didn't finish running"},
      {"two profilers at once",
       [] {
         prof::profile a, b;
         a.start();
         b.start();
       },
       "[profiler] Profiler is already enabled"},
      {"trace into a missing directory",
       [] {
         prof::profile p;
         p.start();
         p.stop();
         p.export_chrome_trace("/nonexistent_dir_for_ember/trace.json");
       },
       "[profiler] export_chrome_trace"},
  });
  test::expect_errors<AssertionError>({
      {"active 0", [] { prof::schedule(1, 1, 0); }, "Invalid profiler schedule arguments"},
      {"negative wait", [] { prof::schedule(-1, 1, 1); }, "Invalid profiler schedule arguments"},
      {"negative repeat", [] { prof::schedule(0, 1, 1, -1); },
       "Invalid profiler schedule arguments"},
  });
  EXPECT_EQ(ember::detail::g_mode_users.load(), 0);
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

// Autograd, optimizers and data loaders report through record_function.
TEST(Profiler, BackwardNodesAndOptimizerSteps) {
  Tensor w = test::make_tensor({3}, kFloat32).requires_grad_();
  optim::SGD opt({w}, optim::SGDOptions(0.1));
  prof::profile p;
  p.start();
  (w * w).sum().backward();
  opt.step();
  opt.zero_grad();
  p.stop();
  EXPECT_EQ(named(p, "autograd::engine::evaluate_function: MulBackward0").size(), 1u);
  EXPECT_EQ(named(p, "autograd::engine::evaluate_function: SumBackward0").size(), 1u);
  EXPECT_EQ(named(p, "Optimizer.step#SGD.step").size(), 1u);
  EXPECT_EQ(named(p, "Optimizer.zero_grad#SGD.zero_grad").size(), 1u);
}

}  // namespace
}  // namespace ember
