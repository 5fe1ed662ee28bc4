// Note [Graph IR]: the printer, the verifier and the JSON form, including hostile JSON.
#include <ember/compiler.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "dispatch/primitive.h"
#include "ember/ember.h"
#include "fx_test_util.h"
#include "opdb.h"

namespace ember::test {
namespace {

using json = nlohmann::json;

// x: [2, 3]. A transpose (a view, non-contiguous), sort (two outputs) and an in-place add on a
// clone (kept in place: not functionalised).
fx::GraphModule small_graph() {
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    Tensor t = xs[0].t();
    auto [values, indices] = t.sort(-1);
    Tensor y = values.clone();
    y.add_(xs[0].t());
    return {y, indices};
  };
  return make_fx(fn, {arange(6, kFloat32).reshape({2, 3})}, {.functionalize = false});
}

TEST(FxGraph, PrinterShowsOneLinePerNode) {
  const fx::GraphModule gm = small_graph();
  // clone is a copy into a fresh tensor (the op builder allocates it); t is a transpose view.
  EXPECT_EQ(text_without_view_params(gm.graph()),
            "def forward(self, arg0_1: \"f32[2, 3]\"):\n"
            "    transpose: \"f32[3, 2] stride=[1, 3]\" = ember.transpose(arg0_1, ...)\n"
            "    sort: \"(f32[3, 2], i64[3, 2])\" = ember.sort(transpose, op=Sort, dim=1, "
            "descending=False, k=0, whole=False, keepdim=False)\n"
            "    copy_: \"f32[3, 2]\" = ember.copy_(sort[0], dtype=Float)\n"
            "    transpose_1: \"f32[3, 2] stride=[1, 3]\" = ember.transpose(arg0_1, ...)\n"
            "    add_: \"f32[3, 2]\" = ember.add_(copy_, transpose_1, op=Add, alpha=1)  # in place "
            "on copy_\n"
            "    return (add_, sort[1])\n");
  Tensor x = arange(6, kFloat32).reshape({2, 3});
  std::vector<Tensor> out = gm({x});
  // Reference by hand: x.t() = [[0, 3], [1, 4], [2, 5]] is sorted already, so y = 2 * x.t().
  EXPECT_EQ(values(out[0]), (std::vector<double>{0, 6, 2, 8, 4, 10}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{0, 1, 0, 1, 0, 1}));
}

// A graph with one node changed must fail verification, naming the node.
void expect_invalid(fx::Graph g, const std::function<void(std::vector<fx::Node>&)>& corrupt,
                    const std::string& needle) {
  corrupt(g.mutable_nodes());
  try {
    g.verify();
    ADD_FAILURE() << "no error for " << needle;
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("[Graph.verify]", 0), 0u) << e.what();
  }
}

TEST(FxGraph, VerifierCatchesCorruptedNodes) {
  const fx::Graph g = small_graph().graph();
  EXPECT_NO_THROW(g.verify());
  // nodes: 0 arg0_1, 1 transpose, 2 sort, 3 copy_, 4 transpose_1, 5 add_, 6 output
  expect_invalid(
      g, [](auto& n) { n[3].outputs[0].sizes[0] = 4; },
      "node 'copy_' (call copy_): output 0 is recorded as float32[4, 2]");
  expect_invalid(
      g, [](auto& n) { n[2].outputs[1].dtype = kInt32; },
      "node 'sort' (call sort): output 1 is recorded as int32");
  expect_invalid(
      g, [](auto& n) { n[2].outputs.pop_back(); }, "records 1 outputs, its primitive infers 2");
  expect_invalid(
      g,
      [](auto& n) {
        n[3].args[0] = {5, 0};
      },
      "node 'copy_' (call copy_): an argument refers to node 5");
  expect_invalid(
      g,
      [](auto& n) {
        n[3].args[0] = {2, 2};
      },
      "refers to output 2 of node 'sort', which has 2");
  expect_invalid(
      g,
      [](auto& n) {
        n[5].inplace_target = fx::ValueRef{1, 0};
      },
      "node 'add_' (call add_): writes f32[3, 2] stride=[1, 3] in place");
  expect_invalid(
      g,
      [](auto& n) {
        n[3].inplace_target = fx::ValueRef{1, 0};
      },
      "an in-place target on an out-of-place primitive");
  expect_invalid(
      g, [](auto& n) { n[4].name = n[1].name; },
      "node 'transpose' (call transpose): its name is empty or reused");
  expect_invalid(
      g, [](auto& n) { std::swap(n[5], n[6]); }, "the output node must be the last node");
  expect_invalid(
      g, [](auto& n) { n[1].kind = fx::NodeKind::Placeholder; },
      "only call nodes have a primitive");
  expect_invalid(
      g, [](auto& n) { n[3].prim = nullptr; }, "a call node without a primitive");
  expect_invalid(
      g, [](auto& n) { n[6].args.push_back({}); }, "returns None");
  fx::Graph empty;
  EXPECT_THROW(empty.verify(), ValueError);
  // A module refuses a graph whose attributes it does not hold.
  const Tensor c = arange(2, kFloat32);
  fx::GraphModule with_constant =
      make_fx([&](const std::vector<Tensor>& xs) -> std::vector<Tensor> { return {xs[0] + c}; },
              {ones({2})});
  EXPECT_NO_THROW(fx::GraphModule(with_constant.graph(), with_constant.attrs()));
  EXPECT_THROW(fx::GraphModule(with_constant.graph(), {}), ValueError);
}

TEST(FxGraph, JsonRoundTripIsLossless) {
  const fx::GraphModule gm = small_graph();
  const std::string text = gm.graph().to_json();
  const fx::Graph back = fx::Graph::from_json(text);
  EXPECT_EQ(back, gm.graph());
  EXPECT_EQ(back.to_json(), text);
  EXPECT_EQ(back.to_string(), gm.graph().to_string());
  // The read-back graph runs and gives the same results.
  Tensor x = arange(6, kFloat32).reshape({2, 3});
  const fx::GraphModule again(back, gm.attrs());
  EXPECT_TRUE(again({x})[0].equal(gm({x})[0]));
  // Equality sees a changed primitive parameter.
  fx::Graph changed = back;
  json j = json::parse(text);
  j["nodes"][2]["primitive"]["params"]["descending"] = true;
  changed = fx::Graph::from_json(j.dump());
  EXPECT_FALSE(changed == gm.graph());
}

TEST(FxGraph, HostileJsonIsRefused) {
  const json good = json::parse(small_graph().graph().to_json());
  auto with = [&](const std::function<void(json&)>& edit) {
    json j = good;
    edit(j);
    return j.dump();
  };
  // Text the test's own parser would refuse: node 1's first argument replaced verbatim.
  auto huge = [&](const std::string& ref) {
    std::string text = with([](json& j) { j["nodes"][1]["args"][0] = "HUGE"; });
    return text.replace(text.find("\"HUGE\""), 6, ref);
  };
  std::string deep(200000, ']');
  std::fill(deep.begin(), deep.begin() + 100000, '[');
  const std::string deep_inside = with([](json& j) {
    json v = 1;
    for (int i = 0; i < 100; ++i) v = json::array({v});
    j["nodes"][1]["args"] = v;
  });
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "not valid JSON"},
      {"{\"nodes\": [", "not valid JSON"},
      {"[1, 2]", "expected a JSON object"},
      {deep, "nesting deeper than 64 levels"},
      {deep_inside, "nesting deeper than 64 levels"},
      {with([](json& j) { j.erase("nodes"); }), "missing 'nodes'"},
      {with([](json& j) { j["version"] = 2; }), "unsupported version 2"},
      {with([](json& j) { j["format"] = "onnx"; }), "'format' must be"},
      {with([](json& j) { j["extra"] = 1; }), "unexpected key 'extra'"},
      {with([](json& j) { j["nodes"] = "x"; }), "'nodes' must be a list"},
      {with([](json& j) { j["nodes"][1] = 7; }), "node 1: a node must be an object"},
      {with([](json& j) { j["nodes"][1]["op"] = "call_module"; }),
       "node 1 'transpose': unknown node kind \"call_module\""},
      {with([](json& j) { j["nodes"][1].erase("op"); }), "missing 'op'"},
      {with([](json& j) { j["nodes"][1]["name"] = "a b"; }), "'name' must be an identifier"},
      {with([](json& j) { j["nodes"][1]["name"] = std::string(300, 'a'); }),
       "'name' must be an identifier"},
      {with([](json& j) { j["nodes"][1]["name"] = 5; }), "'name' must be a string"},
      {with([](json& j) { j["nodes"][1]["name"] = "0.weight"; }), "'name' must be an identifier"},
      {with([](json& j) { j["nodes"][4]["name"] = "transpose"; }),
       "the name 'transpose' is reused"},
      {with([](json& j) { j["nodes"][1]["args"] = "arg0_1"; }), "'args' must be a list"},
      {with([](json& j) {
         j["nodes"][1]["args"][0] = json::array({5, 0});
       }),
       "node 1 'transpose': refers to node 5, which is not defined before it"},
      {with([](json& j) {
         j["nodes"][1]["args"][0] = json::array({1, 0});
       }),
       "refers to node 1, which is not defined before it"},
      {with([](json& j) {
         j["nodes"][1]["args"][0] = json::array({-1, 0});
       }),
       "refers to node -1"},
      {with([](json& j) {
         j["nodes"][3]["args"][0] = json::array({2, 7});
       }),
       "refers to output 7 of node 2, which has 2"},
      {with([](json& j) { j["nodes"][1]["args"][0] = json::array({0}); }),
       "a reference must be [node, output]"},
      {huge("[1e400, 0]"), "not valid JSON"},  // out of double's range
      {huge("[99999999999999999999, 0]"), "a reference's node must be an int64"},
      {huge("[9223372036854775808, 0]"), "a reference's node must be an int64"},
      {huge("[1e18, 0]"), "a reference's node must be an int64, got 1e+18"},
      {with([](json& j) {
         j["nodes"][1]["args"][0] = json::array({0.5, 0});
       }),
       "must be an int64, got 0.5"},
      {with([](json& j) { j["nodes"][0]["meta"][0]["sizes"][0] = -2; }),
       "sizes and strides must be non-negative"},
      {with([](json& j) {
         j["nodes"][0]["meta"][0]["sizes"] = json::array({int64_t{1} << 62, 8});
       }),
       "overflows"},
      {with([](json& j) { j["nodes"][0]["meta"][0]["storage_offset"] = -1; }),
       "'storage_offset' must be non-negative"},
      {with([](json& j) { j["nodes"][0]["meta"][0]["storage_offset"] = int64_t{1} << 62; }),
       "overflows int64"},
      {with([](json& j) { j["nodes"][0]["meta"][0]["strides"] = json::array({3}); }),
       "must be lists of one length"},
      {with([](json& j) { j["nodes"][0]["meta"][0]["dtype"] = "float128"; }),
       "unknown dtype \"float128\""},
      {with([](json& j) { j["nodes"][0]["meta"][0]["device"] = "tpu"; }), "cpu, cuda, meta"},
      {with([](json& j) { j["nodes"][0]["meta"][0]["requires_grad"] = 1; }),
       "'requires_grad' must be a boolean"},
      {with([](json& j) { j["nodes"][0]["meta"][0]["colour"] = "red"; }),
       "unexpected key 'colour'"},
      {with([](json& j) { j["nodes"][1]["primitive"]["kind"] = "Exec"; }),
       "node 1 'transpose': [primitive_from_json] unknown primitive kind 'Exec'"},
      {with([](json& j) { j["nodes"][2]["primitive"]["params"]["dim"] = "1"; }),
       "parameter 'dim' expected an int64"},
      {with([&](json& j) { j["nodes"][0]["primitive"] = good["nodes"][1]["primitive"]; }),
       "a placeholder has no 'primitive'"},
      {with([](json& j) { j["nodes"][3]["meta"][0]["sizes"][0] = 4; }),
       "node 'copy_' (call copy_): output 0 is recorded as float32[4, 2]"},
      {with([](json& j) { j["nodes"].erase(j["nodes"].size() - 1); }),
       "the graph must end with one output node"},
      {with([](json& j) { j["nodes"][6]["meta"] = json::array(); }),
       "an output node has no 'meta'"},
      {with([](json& j) { j["nodes"][3]["subgraphs"] = 3; }), "'subgraphs' must be a list"},
      {with([](json& j) { j["nodes"][3]["alloc_outputs"] = "yes"; }),
       "'alloc_outputs' must be a boolean"},
  };
  for (const auto& [text, needle] : cases) {
    try {
      fx::Graph::from_json(text);
      ADD_FAILURE() << "no error, expected '" << needle << "' for " << text.substr(0, 300);
    } catch (const ValueError& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.rfind("[Graph.from_json]", 0), 0u) << m;
      EXPECT_NE(m.find(needle), std::string::npos) << "'" << m << "' lacks '" << needle << "'";
    } catch (const std::exception& e) {
      ADD_FAILURE() << "wrong exception type for '" << needle << "': " << e.what();
    }
  }
}

}  // namespace
}  // namespace ember::test
