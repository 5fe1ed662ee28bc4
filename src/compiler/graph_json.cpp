// The graph's JSON form (Note [Graph IR]). Reading treats the text as hostile: every field is
// type-checked, unknown keys and node kinds are refused, references must point backwards, sizes
// must fit int64 without overflow, nesting depth and node count are bounded, and the result is
// verified against the primitives' inference. Every refusal is a ValueError naming the node.
//
//   {"format": "ember.fx.graph", "version": 1, "nodes": [
//     {"op": "placeholder", "name": "arg0_1", "meta": [{"dtype": "float32", "device": "cpu",
//      "sizes": [4, 3], "strides": [3, 1], "requires_grad": false}]},
//     {"op": "call", "name": "relu", "primitive": {"kind": "Unary", "params": {...}},
//      "args": [[0, 0]], "meta": [...]},
//     {"op": "output", "name": "output", "args": [[1, 0]]}]}
//
// A graph traced with dynamic shapes (Note [Symbolic shapes]) also lists its symbols,
//   "symbols": [{"name": "s0", "dim": "batch", "min": 2, "max": 1024, "hint": 8,
//                "runtime_min": 1, "source": "input 0 dim 0"}],
// and writes a symbolic size or stride as its expression's text ("2*s0"); the facts of its
// assumptions (Note [Assumptions]) follow as
//   "assumptions": [{"expr": "s0 - s1 - 1", "equal": false, "text": "batch > seq"}].
#include <nlohmann/json.hpp>
#include <set>

#include "compiler/meta.h"
#include "compiler/symbolic.h"
#include "ember/fx/graph.h"

namespace ember::fx {

using json = nlohmann::json;

namespace {

constexpr int kFormatVersion = 1;
constexpr size_t kMaxDepth = 64;       // bracket nesting of the whole text
constexpr size_t kMaxNodes = 1 << 20;  // per graph
constexpr size_t kMaxRank = 64;
constexpr size_t kMaxNameLength = 256;

json meta_json(const ValueMeta& m) {
  if (!m.defined()) return nullptr;  // a placeholder for an input passed as None
  auto entry = [](const SymInt& s) { return s.is_symbolic() ? json(s.str()) : json(s.hint()); };
  auto ints = [&](const SmallVector<SymInt, 6>& v) {
    json a = json::array();
    for (const SymInt& s : v) a.push_back(entry(s));
    return a;
  };
  json j = {{"dtype", dtype_name(m.dtype)},
            {"device", m.device.str()},
            {"sizes", ints(m.sizes)},
            {"strides", ints(m.strides)},
            {"requires_grad", m.requires_grad}};
  if (!m.storage_offset.same_as(0)) j["storage_offset"] = entry(m.storage_offset);
  return j;
}

json ref_json(ValueRef v) { return v.is_none() ? json(nullptr) : json::array({v.node, v.output}); }

json graph_json(const Graph& g) {
  json nodes = json::array();
  for (const Node& n : g.nodes()) {
    json j = {{"op", node_kind_name(n.kind)}, {"name", n.name}};
    if (n.kind == NodeKind::GetAttr) j["target"] = n.target;
    if (n.prim) j["primitive"] = json::parse(n.prim->to_json());
    if (n.kind == NodeKind::Call || n.kind == NodeKind::Output) {
      json args = json::array();
      for (ValueRef a : n.args) args.push_back(ref_json(a));
      j["args"] = std::move(args);
    }
    if (n.inplace_target) j["inplace_target"] = ref_json(*n.inplace_target);
    if (n.alloc_outputs) j["alloc_outputs"] = true;
    if (n.kind != NodeKind::Output) {
      json metas = json::array();
      for (const ValueMeta& m : n.outputs) metas.push_back(meta_json(m));
      j["meta"] = std::move(metas);
    }
    if (!n.subgraphs.empty()) {
      json subs = json::array();
      for (const auto& s : n.subgraphs) subs.push_back(graph_json(*s));
      j["subgraphs"] = std::move(subs);
    }
    nodes.push_back(std::move(j));
  }
  json j = {{"format", "ember.fx.graph"}, {"version", kFormatVersion}, {"nodes", std::move(nodes)}};
  std::shared_ptr<ShapeEnv> env;
  for (const Node& n : g.nodes()) {
    for (const ValueMeta& m : n.outputs) {
      for (const SymInt& s : m.sizes) env = env ? env : env_of(s);
      for (const SymInt& s : m.strides) env = env ? env : env_of(s);
    }
  }
  if (env) {
    json syms = json::array();
    for (const SymbolInfo& si : env->symbols()) {
      syms.push_back({{"name", si.name},
                      {"dim", si.dim},
                      {"min", si.min},
                      {"max", si.max},
                      {"hint", si.hint},
                      {"runtime_min", si.runtime_min},
                      {"source", si.source}});
      if (si.unbacked) syms.back()["unbacked"] = true;
    }
    j["symbols"] = std::move(syms);
    if (!env->facts().empty()) {  // Note [Assumptions]
      json facts = json::array();
      for (const ShapeEnv::Fact& f : env->facts()) {
        facts.push_back({{"expr", env->fact_expr(f).str()}, {"equal", f.equal}, {"text", f.text}});
      }
      j["assumptions"] = std::move(facts);
    }
  }
  return j;
}

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  EMBER_THROW(ValueError, "[Graph.from_json] ", where.empty() ? "" : where + ": ", what);
}

// The deepest bracket nesting outside strings, so that no parser or destructor recurses far.
size_t nesting_depth(const std::string& text) {
  size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

class Reader {
 public:
  Graph graph(const json& j) {
    if (!j.is_object()) bad("", "expected a JSON object, got " + j.dump().substr(0, 100));
    keys(j, "", {"format", "version", "nodes", "symbols", "assumptions"});
    const json& format = need(j, "format", "");
    if (format != "ember.fx.graph") bad("", "'format' must be \"ember.fx.graph\"");
    const json& version = need(j, "version", "");
    if (version != kFormatVersion) {
      bad("", "unsupported version " + version.dump() + " (this build reads " +
                  std::to_string(kFormatVersion) + ")");
    }
    if (j.contains("symbols")) symbols(j["symbols"]);
    if (j.contains("assumptions")) assumptions(j["assumptions"]);
    const json& nodes = need(j, "nodes", "");
    if (!nodes.is_array()) bad("", "'nodes' must be a list");
    if (nodes.size() > kMaxNodes) bad("", "more than " + std::to_string(kMaxNodes) + " nodes");
    Graph g;
    for (size_t i = 0; i < nodes.size(); ++i) {
      Node n = node(nodes[i], i);
      if (!names_.insert(n.name).second)
        bad("node " + std::to_string(i), "the name '" + n.name + "' is reused");
      g.append(std::move(n));
    }
    try {
      g.verify();
    } catch (const ValueError& e) {
      bad("", e.what());
    }
    return g;
  }

 private:
  // Note [Assumptions]: facts over the symbols read before.
  void assumptions(const json& list) {
    const std::string where = "assumptions";
    if (!env_) bad(where, "assumptions need 'symbols'");
    if (!list.is_array()) bad(where, "'assumptions' must be a list");
    if (list.size() > kMaxNodes) bad(where, "too many assumptions");
    for (const json& a : list) {
      if (!a.is_object()) bad(where, "an assumption must be an object");
      keys(a, where, {"expr", "equal", "text"});
      const json& expr = need(a, "expr", where);
      const json& equal = need(a, "equal", where);
      const json& text = need(a, "text", where);
      if (!expr.is_string() || !equal.is_boolean() || !text.is_string() ||
          text.get<std::string>().size() > kMaxNameLength) {
        bad(where, "an assumption needs a string 'expr', a boolean 'equal' and a short 'text'");
      }
      try {
        env_->assume(env_->parse(expr.get<std::string>(), "assumption"), equal.get<bool>(),
                     text.get<std::string>());
      } catch (const Error& e) {
        bad(where, e.what());
      }
    }
  }

  // Note [Symbolic shapes]: the symbols s0, s1, ... in order, each with a valid range and hint.
  void symbols(const json& list) {
    const std::string where = "symbols";
    if (!list.is_array()) bad(where, "'symbols' must be a list");
    if (list.size() > kMaxNodes) bad(where, "too many symbols");
    env_ = ShapeEnv::make();
    for (size_t i = 0; i < list.size(); ++i) {
      const json& s = list[i];
      if (!s.is_object()) bad(where, "a symbol must be an object");
      keys(s, where, {"name", "dim", "min", "max", "hint", "runtime_min", "source", "unbacked"});
      const bool unbacked = s.contains("unbacked");
      if (unbacked && s["unbacked"] != true) bad(where, "'unbacked' must be true when present");
      const std::string prefix = unbacked ? "u" : "s";
      const json& name = need(s, "name", where);
      if (name != prefix + std::to_string(i))
        bad(where, "symbol " + std::to_string(i) + " must be named " + prefix + std::to_string(i));
      const json& source = need(s, "source", where);
      if (!source.is_string() || source.get<std::string>().size() > kMaxNameLength) {
        bad(where, "'source' must be a short string");
      }
      if (unbacked) {  // Note [Unbacked symbols]: [min, max], no example; `dim` says what it counts
        const json& what = need(s, "dim", where);
        if (!what.is_string() || what.get<std::string>().empty() ||
            what.get<std::string>().size() > kMaxNameLength) {
          bad(where, "'dim' must be a short string");
        }
        const int64_t lo = s.contains("min") ? int64(s["min"], where, "'min'") : 0;
        const int64_t hi = int64(need(s, "max", where), where, "'max'");
        if (lo < 0 || hi < lo) bad(where, "symbol " + std::to_string(i) + " needs 0 <= min <= max");
        env_->unbacked(what.get<std::string>(), hi, source.get<std::string>(), lo);
        continue;
      }
      const std::string dim = identifier(need(s, "dim", where), where, "'dim'", false);
      const int64_t lo = int64(need(s, "min", where), where, "'min'");
      const int64_t hi = int64(need(s, "max", where), where, "'max'");
      const int64_t hint = int64(need(s, "hint", where), where, "'hint'");
      if (lo < 2 || hi < lo || hint < lo || hint > hi) {
        bad(where, "symbol " + std::to_string(i) + " needs 2 <= min <= hint <= max");
      }
      // runtime_min: the Dim's min (0 or 1 run though tracing reasons from 2); absent in older
      // files, where it is min.
      const int64_t run_lo =
          s.contains("runtime_min") ? int64(s["runtime_min"], where, "'runtime_min'") : lo;
      if (run_lo < 0 || run_lo > lo) {
        bad(where, "symbol " + std::to_string(i) + " needs 0 <= runtime_min <= min");
      }
      env_->symbol(dim, lo, hi, hint, source.get<std::string>(), run_lo);
    }
  }

  // A size or stride: an integer, or an expression over the graph's symbols.
  SymInt size_entry(const json& v, const std::string& where, const char* what) {
    if (!v.is_string()) return SymInt(int64(v, where, what));
    if (!env_) bad(where, std::string(what) + " is an expression, but the graph lists no symbols");
    if (v.get<std::string>().size() > 4096) bad(where, std::string(what) + " is too long");
    try {
      return env_->parse(v.get<std::string>(), "Graph.from_json");
    } catch (const Error& e) {
      bad(where, e.what());
    }
  }

  static void keys(const json& j, const std::string& where, std::initializer_list<const char*> ok) {
    for (const auto& [key, value] : j.items()) {
      bool known = false;
      for (const char* k : ok) known = known || key == k;
      if (!known) bad(where, "unexpected key '" + key.substr(0, 64) + "'");
    }
  }
  static const json& need(const json& j, const char* key, const std::string& where) {
    auto it = j.find(key);
    if (it == j.end()) bad(where, std::string("missing '") + key + "'");
    return *it;
  }
  static int64_t int64(const json& j, const std::string& where, const char* what) {
    if (!j.is_number_integer() || (j.is_number_unsigned() && j.get<uint64_t>() > INT64_MAX)) {
      bad(where, std::string(what) + " must be an int64, got " + j.dump().substr(0, 64));
    }
    return j.get<int64_t>();
  }
  // A node name is an identifier; an attribute path is dot-separated names or indices
  // ("layers.0.weight").
  static std::string identifier(const json& j, const std::string& where, const char* what,
                                bool dotted) {
    if (!j.is_string()) bad(where, std::string(what) + " must be a string");
    const std::string& s = j.get_ref<const std::string&>();
    bool ok = !s.empty() && s.size() <= kMaxNameLength && s.front() != '.' && s.back() != '.' &&
              (dotted || !std::isdigit(static_cast<unsigned char>(s[0])));
    for (size_t i = 0; ok && i < s.size(); ++i) {
      const char c = s[i];
      ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
           (dotted && c == '.' && s[i + 1] != '.');
    }
    if (!ok) {
      bad(where, std::string(what) + " must be " + (dotted ? "a dotted path" : "an identifier") +
                     ", got " + j.dump().substr(0, 64));
    }
    return s;
  }

  ValueRef ref(const json& j, const std::string& where) {
    if (j.is_null()) return {};
    if (!j.is_array() || j.size() != 2) bad(where, "a reference must be [node, output] or null");
    const int64_t node = int64(j[0], where, "a reference's node");
    const int64_t output = int64(j[1], where, "a reference's output");
    if (node < 0 || node >= static_cast<int64_t>(defined_.size())) {
      bad(where, "refers to node " + std::to_string(node) + ", which is not defined before it");
    }
    if (output < 0 || output >= defined_[node]) {
      bad(where, "refers to output " + std::to_string(output) + " of node " + std::to_string(node) +
                     ", which has " + std::to_string(defined_[node]));
    }
    return {static_cast<int>(node), static_cast<int>(output)};
  }

  ValueMeta meta(const json& j, const std::string& where) {
    if (!j.is_object()) bad(where, "a value's metadata must be an object");
    keys(j, where, {"dtype", "device", "sizes", "strides", "requires_grad", "storage_offset"});
    ValueMeta m;
    const json& dtype = need(j, "dtype", where);
    bool found = false;
    for (int t = 0; t < static_cast<int>(ScalarType::Undefined) && dtype.is_string(); ++t) {
      if (dtype == dtype_name(static_cast<ScalarType>(t))) {
        m.dtype = static_cast<ScalarType>(t);
        found = true;
      }
    }
    if (!found) bad(where, "unknown dtype " + dtype.dump().substr(0, 64));
    const json& device = need(j, "device", where);
    if (!device.is_string()) bad(where, "'device' must be a string");
    try {
      m.device = Device(device.get<std::string>());
    } catch (const Error& e) {
      bad(where, e.what());
    }
    const json& sizes = need(j, "sizes", where);
    const json& strides = need(j, "strides", where);
    if (!sizes.is_array() || !strides.is_array() || sizes.size() != strides.size() ||
        sizes.size() > kMaxRank) {
      bad(where,
          "'sizes' and 'strides' must be lists of one length, at most " + std::to_string(kMaxRank));
    }
    std::vector<int64_t> sz, st;  // the example's values (hints) of symbolic entries
    for (size_t d = 0; d < sizes.size(); ++d) {
      m.sizes.push_back(size_entry(sizes[d], where, "a size"));
      m.strides.push_back(size_entry(strides[d], where, "a stride"));
      sz.push_back(m.sizes.back().hint());
      st.push_back(m.strides.back().hint());
      if (sz.back() < 0 || st.back() < 0) bad(where, "sizes and strides must be non-negative");
    }
    if (j.contains("storage_offset")) {
      m.storage_offset = size_entry(j["storage_offset"], where, "'storage_offset'");
      if (m.storage_offset.hint() < 0) bad(where, "'storage_offset' must be non-negative");
    }
    try {  // the extent must fit int64 bytes, as an allocation from it would need
      const size_t extent = strided_nbytes(sz, st, m.dtype, "Graph.from_json");
      const int64_t esize = element_size(m.dtype);
      EMBER_CHECK(m.storage_offset.hint() <= (INT64_MAX - static_cast<int64_t>(extent)) / esize,
                  "[Graph.from_json] the storage offset overflows int64 bytes");
    } catch (const Error& e) {
      bad(where, e.what());
    }
    const json& rg = need(j, "requires_grad", where);
    if (!rg.is_boolean()) bad(where, "'requires_grad' must be a boolean");
    m.requires_grad = rg.get<bool>();
    return m;
  }

  Node node(const json& j, size_t index) {
    std::string where = "node " + std::to_string(index);
    if (!j.is_object()) bad(where, "a node must be an object");
    keys(j, where,
         {"op", "name", "target", "primitive", "args", "inplace_target", "alloc_outputs", "meta",
          "subgraphs"});
    Node n;
    n.name = identifier(need(j, "name", where), where, "'name'", false);
    where += " '" + n.name + "'";
    const json& op = need(j, "op", where);
    bool known = false;
    for (NodeKind k :
         {NodeKind::Placeholder, NodeKind::GetAttr, NodeKind::Call, NodeKind::Output}) {
      if (op.is_string() && op == node_kind_name(k)) {
        n.kind = k;
        known = true;
      }
    }
    if (!known) bad(where, "unknown node kind " + op.dump().substr(0, 64));
    if (n.kind == NodeKind::GetAttr)
      n.target = identifier(need(j, "target", where), where, "'target'", true);
    if (n.kind == NodeKind::Call) {
      const json& prim = need(j, "primitive", where);
      try {
        // Parameters may hold size expressions over the graph's symbols.
        const ember::detail::SymIntReader read = [&](const std::string& t) {
          return env_->parse(t, "Graph.from_json");
        };
        struct Scope {
          explicit Scope(const ember::detail::SymIntReader* r) {
            ember::detail::sym_int_reader() = r;
          }
          ~Scope() { ember::detail::sym_int_reader() = nullptr; }
        } scope(env_ ? &read : nullptr);
        n.prim = primitive_from_json(prim.dump());
      } catch (const ValueError& e) {
        bad(where, e.what());
      }
      if (j.contains("alloc_outputs")) {
        if (!j["alloc_outputs"].is_boolean()) bad(where, "'alloc_outputs' must be a boolean");
        n.alloc_outputs = j["alloc_outputs"].get<bool>();
      }
      if (j.contains("inplace_target")) n.inplace_target = ref(j["inplace_target"], where);
    } else {
      for (const char* k : {"primitive", "inplace_target", "alloc_outputs", "subgraphs"}) {
        if (j.contains(k))
          bad(where, std::string("a ") + node_kind_name(n.kind) + " has no '" + k + "'");
      }
    }
    if (n.kind == NodeKind::Call || n.kind == NodeKind::Output) {
      const json& args = need(j, "args", where);
      if (!args.is_array()) bad(where, "'args' must be a list");
      for (const json& a : args) n.args.push_back(ref(a, where));
    } else if (j.contains("args")) {
      bad(where, "a " + std::string(node_kind_name(n.kind)) + " has no 'args'");
    }
    if (n.kind != NodeKind::Output) {
      const json& metas = need(j, "meta", where);
      if (!metas.is_array()) bad(where, "'meta' must be a list");
      for (const json& m : metas) {
        if (m.is_null() && n.kind == NodeKind::Placeholder) {
          n.outputs.push_back(ValueMeta::of(Tensor()));
        } else {
          n.outputs.push_back(meta(m, where));
        }
      }
    } else if (j.contains("meta")) {
      bad(where, "an output node has no 'meta'");
    }
    if (j.contains("subgraphs")) {
      if (!j["subgraphs"].is_array()) bad(where, "'subgraphs' must be a list");
      for (const json& s : j["subgraphs"])
        n.subgraphs.push_back(std::make_shared<Graph>(Reader().graph(s)));
    }
    defined_.push_back(static_cast<int64_t>(n.outputs.size()));
    return n;
  }

  std::vector<int64_t> defined_;   // outputs per node read so far
  std::shared_ptr<ShapeEnv> env_;  // the graph's symbols, if it has any
  std::set<std::string> names_;
};

}  // namespace

std::string Graph::to_json() const { return graph_json(*this).dump(); }

Graph Graph::from_json(const std::string& text) {
  if (nesting_depth(text) > kMaxDepth) {
    bad("", "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
  }
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) bad("", "not valid JSON");
  return Reader().graph(j);
}

}  // namespace ember::fx
