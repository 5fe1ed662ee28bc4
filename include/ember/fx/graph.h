#pragma once
// Note [Graph IR]: the compiler's program representation, after torch.fx. A Graph is a list of
// nodes in SSA form, each defined before it is used:
//   placeholder  an input of the graph (in order; placeholders come first)
//   get_attr     a tensor the GraphModule holds: a parameter, a buffer or a captured constant
//   call         one primitive (its parameters are data: compared, hashed, serialised) applied
//                to earlier values; it may have several outputs (sort: values and indices)
//   output       the values the graph returns (last, exactly once)
// A value is (node, output index). Every value carries its metadata (dtype, device, sizes and
// strides as SymInt, requires_grad); the verifier checks it against the primitive's inference.
// An in-place call (its primitive's inplace()) writes its `inplace_target`, or a fresh tensor
// when it has none (the op builder's own allocation, as fill_ of a new scalar); such calls are
// still mutations (functionalisation is a later pass). Subgraphs hold bodies for control flow.
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ember/core/device.h"
#include "ember/core/dtype.h"
#include "ember/core/small_vector.h"
#include "ember/core/symint.h"
#include "ember/core/tensor.h"

namespace ember {
class Primitive;
}

namespace ember::fx {

/// What a value is without its data (the public face of dispatch's TensorMeta, plus
/// requires_grad).
struct ValueMeta {
  SmallVector<SymInt, 6> sizes, strides;
  ScalarType dtype = kFloat32;
  Device device = kCPU;
  bool requires_grad = false;
  /// Where the tensor starts in its storage (elements): views are recorded with their absolute
  /// geometry in the storage for now, so the graph holds for inputs that start where the
  /// traced ones did. Symbolic for a slice at a dynamic position (narrow(0, s0, n)).
  SymInt storage_offset = 0;
  /// Undefined (dtype Undefined) for an undefined tensor: a placeholder for an optional input
  /// passed as None.
  static ValueMeta of(const Tensor& t);
  bool defined() const { return dtype != ScalarType::Undefined; }
  bool operator==(const ValueMeta& o) const;
  /// FX's short form: "f32[4, 5]" ("None" when undefined), with " stride=[1, 4]" when not
  /// contiguous, " offset=3" when not at its storage's start and the device when not the CPU.
  std::string str() const;
};

/// Output `output` of node `node`; node -1 is None (an undefined optional tensor argument).
struct ValueRef {
  int node = -1;
  int output = 0;
  bool is_none() const { return node < 0; }
  bool operator==(const ValueRef& o) const = default;
};

enum class NodeKind : uint8_t { Placeholder, GetAttr, Call, Output };
/// FX's spelling: "placeholder", "get_attr", "call", "output".
const char* node_kind_name(NodeKind kind);

class Graph;

struct Node {
  NodeKind kind = NodeKind::Call;
  std::string name;    // unique in the graph, an identifier
  std::string target;  // get_attr: the attribute's name in the GraphModule ("fc.weight")
  std::shared_ptr<const Primitive> prim;  // call
  std::vector<ValueRef> args;             // call: the primitive's inputs; output: the results
  /// call with an in-place primitive: the value it writes (absent: a fresh tensor).
  std::optional<ValueRef> inplace_target;
  /// call: the op builder allocated the outputs (the interpreter allocates them from `outputs`
  /// too) instead of dispatch allocating them from the primitive's inference.
  bool alloc_outputs = false;
  std::vector<ValueMeta> outputs;                       // one per output value (output nodes: none)
  std::vector<std::shared_ptr<const Graph>> subgraphs;  // control-flow bodies (later)
  bool operator==(const Node& o) const;
  // The call's primitive for code that sees only the public headers:
  /// Its op name ("add", "add_", "mm"); empty for other nodes.
  std::string op() const;
  /// Its parameters, "dim=1, keepdim=True".
  std::string params() const;
  /// Whether it writes its target in place (Primitive::inplace).
  bool inplace() const;
};

class Graph {
 public:
  /// Appends a node; names are made unique ("add", "add_1", ...). Returns its value.
  ValueRef placeholder(const std::string& name, ValueMeta meta);
  ValueRef get_attr(const std::string& name, std::string target, ValueMeta meta);
  /// Returns the index of the new call node.
  int call(const std::string& name, std::shared_ptr<const Primitive> prim,
           std::vector<ValueRef> args, std::optional<ValueRef> inplace_target, bool alloc_outputs,
           std::vector<ValueMeta> outputs);
  void output(std::vector<ValueRef> results);
  /// Appends a node as given (its name must be unused); for readers and tests.
  int append(Node node);

  const std::vector<Node>& nodes() const { return nodes_; }
  /// For passes and tests (verify() afterwards).
  std::vector<Node>& mutable_nodes() { return nodes_; }
  const ValueMeta& meta(ValueRef v) const;
  const std::string& value_name(ValueRef v) const;
  size_t num_placeholders() const;

  /// The graph as FX's print_readable prints it: one line per node with its shapes.
  std::string to_string() const;
  /// Checks structure (SSA order, references, one output node last) and that every call's
  /// recorded metadata is what its primitive infers. Raises ValueError naming the node.
  void verify() const;
  /// A lossless JSON form (primitives as Primitive::to_json); from_json reads it back, rejecting
  /// malformed or hostile input with ValueError, and verifies the result.
  std::string to_json() const;
  static Graph from_json(const std::string& json);

  bool operator==(const Graph& o) const { return nodes_ == o.nodes_; }

 private:
  std::string unique_name(const std::string& base);
  std::vector<Node> nodes_;
  std::set<std::string> names_;  // of nodes_, for unique_name
};

}  // namespace ember::fx
