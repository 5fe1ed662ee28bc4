// Note [Graph IR] (ember/fx/graph.h): building, printing and verifying a graph.
#include "ember/fx/graph.h"

#include <set>
#include <sstream>

#include "compiler/meta.h"
#include "compiler/symbolic.h"
#include "dispatch/primitive.h"

namespace ember::fx {

namespace detail {

Tensor allocate(const ValueMeta& m, const char* op, const SymbolValues& values) {
  std::vector<int64_t> sizes(m.sizes.size()), strides(m.strides.size());
  for (size_t d = 0; d < sizes.size(); ++d) sizes[d] = evaluate(m.sizes[d], values, op);
  for (size_t d = 0; d < strides.size(); ++d) strides[d] = evaluate(m.strides[d], values, op);
  const int64_t offset = evaluate(m.storage_offset, values, op);
  const size_t nbytes = strided_nbytes(sizes, strides, m.dtype, op) +
                        static_cast<size_t>(offset) * element_size(m.dtype);
  auto storage = std::make_shared<StorageImpl>(nbytes, m.device);
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), m.dtype, std::move(sizes),
                                             std::move(strides), offset));
}

const char* short_dtype_name(ScalarType t) {
  switch (t) {
    case kBool:
      return "b8";
    case kUInt8:
      return "u8";
    case kInt8:
      return "i8";
    case kInt16:
      return "i16";
    case kInt32:
      return "i32";
    case kInt64:
      return "i64";
    case kFloat16:
      return "f16";
    case kBFloat16:
      return "bf16";
    case kFloat32:
      return "f32";
    case kFloat64:
      return "f64";
    case kComplexFloat:
      return "c64";
    case kFloat8_e4m3fn:
      return "f8e4m3fn";
    case kFloat8_e5m2:
      return "f8e5m2";
    case ScalarType::Undefined:
      return "undefined";
  }
  return "?";
}

}  // namespace detail

namespace {

[[noreturn]] void invalid(const Node& node, const std::string& what) {
  EMBER_THROW(ValueError, "[Graph.verify] node '", node.name, "' (", node_kind_name(node.kind),
              node.prim ? std::string(" ") + node.prim->name() : std::string(), "): ", what);
}

std::string list_str(const SmallVector<SymInt, 6>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i].str();
  return s + "]";
}

bool is_contiguous(const ValueMeta& m) {
  return same_as(TensorMeta::contiguous(m.sizes, m.dtype, m.device).strides, m.strides);
}

}  // namespace

ValueMeta ValueMeta::of(const Tensor& t) {
  if (!t.defined()) return {{}, {}, ScalarType::Undefined, kCPU, false, 0};
  const TensorMeta m = TensorMeta::of(t);
  return {m.sizes,  m.strides,         m.dtype,
          m.device, t.requires_grad(), t.unsafeGetTensorImpl()->sym_storage_offset()};
}

bool ValueMeta::operator==(const ValueMeta& o) const {
  return same_as(sizes, o.sizes) && same_as(strides, o.strides) && dtype == o.dtype &&
         device == o.device && requires_grad == o.requires_grad &&
         storage_offset.same_as(o.storage_offset);
}

std::string ValueMeta::str() const {
  if (!defined()) return "None";
  std::string s = detail::short_dtype_name(dtype) + list_str(sizes);
  if (!is_contiguous(*this)) s += " stride=" + list_str(strides);
  if (!storage_offset.same_as(0)) s += " offset=" + storage_offset.str();
  if (!device.is_cpu()) s += " " + device.str();
  return s;
}

const char* node_kind_name(NodeKind kind) {
  switch (kind) {
    case NodeKind::Placeholder:
      return "placeholder";
    case NodeKind::GetAttr:
      return "get_attr";
    case NodeKind::Call:
      return "call";
    case NodeKind::Output:
      return "output";
  }
  return "?";
}

bool Node::operator==(const Node& o) const {
  if (kind != o.kind || name != o.name || target != o.target || args != o.args ||
      inplace_target != o.inplace_target || alloc_outputs != o.alloc_outputs ||
      outputs != o.outputs || subgraphs.size() != o.subgraphs.size() || !prim != !o.prim) {
    return false;
  }
  if (prim && (!prim->equals(*o.prim) || std::string(prim->name()) != o.prim->name())) {
    return false;
  }
  for (size_t i = 0; i < subgraphs.size(); ++i) {
    if (!(*subgraphs[i] == *o.subgraphs[i])) return false;
  }
  return true;
}

std::string Node::op() const { return prim ? prim->name() : ""; }
std::string Node::params() const { return prim ? prim->describe() : ""; }
bool Node::inplace() const { return prim && prim->inplace(); }

std::string Graph::unique_name(const std::string& base) {
  // An identifier: other characters become '_' (FX's _snake_case / _illegal_char_regex).
  std::string name = base.empty() ? "_" : base;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  }
  if (std::isdigit(static_cast<unsigned char>(name[0]))) name = "_" + name;
  if (!names_.count(name)) return name;
  for (int i = 1;; ++i) {
    std::string candidate = name + "_" + std::to_string(i);
    if (!names_.count(candidate)) return candidate;
  }
}

int Graph::append(Node node) {
  EMBER_CHECK_VALUE(names_.insert(node.name).second, "[Graph] a node named '", node.name,
                    "' exists");
  nodes_.push_back(std::move(node));
  return static_cast<int>(nodes_.size()) - 1;
}

ValueRef Graph::placeholder(const std::string& name, ValueMeta meta) {
  Node n;
  n.kind = NodeKind::Placeholder;
  n.name = unique_name(name);
  n.outputs.push_back(std::move(meta));
  return {append(std::move(n)), 0};
}

ValueRef Graph::get_attr(const std::string& name, std::string target, ValueMeta meta) {
  Node n;
  n.kind = NodeKind::GetAttr;
  n.name = unique_name(name);
  n.target = std::move(target);
  n.outputs.push_back(std::move(meta));
  return {append(std::move(n)), 0};
}

int Graph::call(const std::string& name, std::shared_ptr<const Primitive> prim,
                std::vector<ValueRef> args, std::optional<ValueRef> inplace_target,
                bool alloc_outputs, std::vector<ValueMeta> outputs) {
  Node n;
  n.kind = NodeKind::Call;
  n.name = unique_name(name);
  n.prim = std::move(prim);
  n.args = std::move(args);
  n.inplace_target = inplace_target;
  n.alloc_outputs = alloc_outputs;
  n.outputs = std::move(outputs);
  return append(std::move(n));
}

void Graph::output(std::vector<ValueRef> results) {
  Node n;
  n.kind = NodeKind::Output;
  n.name = unique_name("output");
  n.args = std::move(results);
  append(std::move(n));
}

const ValueMeta& Graph::meta(ValueRef v) const {
  EMBER_CHECK_VALUE(v.node >= 0 && static_cast<size_t>(v.node) < nodes_.size() && v.output >= 0 &&
                        static_cast<size_t>(v.output) < nodes_[v.node].outputs.size(),
                    "[Graph] no value ", v.node, ".", v.output);
  return nodes_[v.node].outputs[v.output];
}

const std::string& Graph::value_name(ValueRef v) const {
  static const std::string none = "None";
  return v.is_none() ? none : nodes_.at(v.node).name;
}

size_t Graph::num_placeholders() const {
  size_t n = 0;
  for (const Node& node : nodes_) n += node.kind == NodeKind::Placeholder;
  return n;
}

std::string Graph::to_string() const {
  auto ref = [&](ValueRef v) {
    if (v.is_none()) return std::string("None");
    const Node& n = nodes_.at(v.node);
    return n.outputs.size() == 1 ? n.name : n.name + "[" + std::to_string(v.output) + "]";
  };
  auto type = [](const Node& n) {
    if (n.outputs.size() == 1) return n.outputs[0].str();
    std::string s = "(";
    for (size_t i = 0; i < n.outputs.size(); ++i) s += (i ? ", " : "") + n.outputs[i].str();
    return s + ")";
  };
  std::ostringstream os;
  os << "def forward(self";
  for (const Node& n : nodes_) {
    if (n.kind == NodeKind::Placeholder) os << ", " << n.name << ": \"" << type(n) << "\"";
  }
  os << "):\n";
  for (const Node& n : nodes_) {
    switch (n.kind) {
      case NodeKind::Placeholder:
        break;
      case NodeKind::GetAttr:
        os << "    " << n.name << ": \"" << type(n) << "\" = self." << n.target << "\n";
        break;
      case NodeKind::Call: {
        os << "    " << n.name << ": \"" << type(n) << "\" = ember." << n.prim->name() << "(";
        std::string sep;
        for (ValueRef a : n.args) {
          os << sep << ref(a);
          sep = ", ";
        }
        const std::string params = n.prim->describe();
        if (!params.empty()) os << sep << params;
        os << ")";
        if (n.prim->inplace()) {
          os << "  # in place on " << (n.inplace_target ? ref(*n.inplace_target) : "a new tensor");
        }
        for (size_t i = 0; i < n.subgraphs.size(); ++i) os << "  # subgraph " << i;
        os << "\n";
        break;
      }
      case NodeKind::Output: {
        std::string results;
        for (ValueRef a : n.args) results += (results.empty() ? "" : ", ") + ref(a);
        os << "    return (" << results << (n.args.size() == 1 ? ",)\n" : ")\n");
        break;
      }
    }
  }
  return os.str();
}

void Graph::verify() const {
  std::set<std::string> names;
  bool seen_other = false;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    if (n.name.empty() || !names.insert(n.name).second) invalid(n, "its name is empty or reused");
    auto check_ref = [&](ValueRef v, const char* what) {
      if (v.is_none()) return;
      if (v.node < 0 || static_cast<size_t>(v.node) >= i) {
        invalid(n, std::string(what) + " refers to node " + std::to_string(v.node) +
                       ", which is not defined before it");
      }
      const Node& def = nodes_[v.node];
      if (v.output < 0 || static_cast<size_t>(v.output) >= def.outputs.size()) {
        invalid(n, std::string(what) + " refers to output " + std::to_string(v.output) +
                       " of node '" + def.name + "', which has " +
                       std::to_string(def.outputs.size()));
      }
    };
    const bool leaf = n.kind == NodeKind::Placeholder || n.kind == NodeKind::GetAttr;
    if (n.kind != NodeKind::Call && (n.prim || n.inplace_target || n.alloc_outputs)) {
      invalid(n, "only call nodes have a primitive, an in-place target or allocated outputs");
    }
    if (leaf && (n.outputs.size() != 1 || !n.args.empty())) {
      invalid(n, "expected one value and no arguments");
    }
    if (n.kind == NodeKind::Placeholder && seen_other) {
      invalid(n, "placeholders must come before every other node");
    }
    if (n.kind == NodeKind::GetAttr && n.target.empty()) invalid(n, "get_attr without a target");
    for (const ValueMeta& m : n.outputs) {
      if (!m.defined() && n.kind != NodeKind::Placeholder) invalid(n, "defines an undefined value");
    }
    seen_other = seen_other || n.kind != NodeKind::Placeholder;
    if (n.kind == NodeKind::Output) {
      if (i + 1 != nodes_.size()) invalid(n, "the output node must be the last node");
      if (!n.outputs.empty()) invalid(n, "an output node defines no values");
      for (ValueRef a : n.args) {
        if (a.is_none()) invalid(n, "returns None");
        check_ref(a, "a result");
      }
      continue;
    }
    if (n.kind != NodeKind::Call) continue;
    if (!n.prim) invalid(n, "a call node without a primitive");
    if (n.outputs.empty()) invalid(n, "a call without outputs");
    for (ValueRef a : n.args) check_ref(a, "an argument");
    if (n.inplace_target) {
      if (!n.prim->inplace()) invalid(n, "an in-place target on an out-of-place primitive");
      check_ref(*n.inplace_target, "the in-place target");
      if (n.inplace_target->is_none()) invalid(n, "the in-place target is None");
      const ValueMeta& t = meta(*n.inplace_target);
      const ValueMeta& o = n.outputs[0];
      if (t.sizes != o.sizes || t.strides != o.strides || t.dtype != o.dtype) {
        invalid(n, "writes " + t.str() + " in place but records its output as " + o.str());
      }
    }
    if (!n.prim->infers()) continue;
    std::vector<TensorMeta> in;
    for (ValueRef a : n.args) {
      in.push_back(a.is_none() || !meta(a).defined() ? TensorMeta{}
                                                     : detail::to_tensor_meta(meta(a)));
    }
    MetaList expected;
    try {
      expected = n.prim->infer(in);
    } catch (const Error& e) {
      invalid(n, std::string("its primitive's inference refuses its inputs: ") + e.what());
    }
    if (expected.size() != n.outputs.size()) {
      invalid(n, "records " + std::to_string(n.outputs.size()) + " outputs, its primitive infers " +
                     std::to_string(expected.size()));
    }
    for (size_t k = 0; k < expected.size(); ++k) {
      TensorMeta got = detail::to_tensor_meta(n.outputs[k]);
      // An in-place target keeps its own strides and dtype (Note [Mutation and aliasing]);
      // outputs the node allocates as recorded keep their strides.
      if (n.prim->inplace() && k == 0) {
        got.strides = expected[k].strides;
        got.dtype = expected[k].dtype;
      } else if (n.alloc_outputs) {
        got.strides = expected[k].strides;
      }
      if (!(got == expected[k])) {
        invalid(n, "output " + std::to_string(k) + " is recorded as " + got.str() +
                       ", but its primitive infers " + expected[k].str());
      }
    }
  }
  if (nodes_.empty() || nodes_.back().kind != NodeKind::Output) {
    EMBER_THROW(ValueError, "[Graph.verify] the graph must end with one output node");
  }
}

}  // namespace ember::fx
