#pragma once
// Note [Autograd graph]: a Node is one recorded op's backward. Its inputs are the gradients of the
// forward op's outputs; it returns the gradients of the forward op's inputs, one per next edge.
// Leaves end in an AccumulateGrad node that adds into Tensor::grad().
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ember/core/small_vector.h"
#include "ember/core/tensor.h"

namespace ember::autograd {

class Node;

/// Where a gradient flows: input `input_nr` of `function` (an undefined function: nowhere).
struct Edge {
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
  bool is_valid() const { return function != nullptr; }
};

/// Shape and dtype of one forward output, to make zeros and to check gradients. The sizes are
/// SymInts: symbolic when a joint graph is traced with dynamic shapes (Note [Symbolic autograd]
/// in src/autograd/record.cpp).
struct OutputMeta {
  SymShape sizes;
  ScalarType dtype = kFloat32;
  static OutputMeta of(const Tensor& t);
};

using TensorHook = std::function<Tensor(const Tensor&)>;

class Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  /// Releases the next edges iteratively, so that freeing a long chain of nodes cannot overflow
  /// the stack.
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  /// PyTorch's class name, e.g. "MulBackward0", "AccumulateGrad".
  virtual std::string name() const = 0;
  /// Gradients of the forward outputs (undefined where none flowed) to gradients of the forward
  /// inputs, one per next edge (undefined where not needed).
  virtual std::vector<Tensor> apply(std::vector<Tensor>&& grads) = 0;
  /// Frees saved tensors after a backward without retain_graph.
  virtual void release_variables() {}

  // Inline for the common one or two inputs and one output: no allocation per recorded op.
  using EdgeList = SmallVector<Edge, 2>;
  using OutputMetaList = SmallVector<OutputMeta, 1>;
  const EdgeList& next_edges() const { return next_edges_; }
  EdgeList& mutable_next_edges() { return next_edges_; }
  const OutputMetaList& output_meta() const { return output_meta_; }
  OutputMetaList& mutable_output_meta() { return output_meta_; }
  size_t num_outputs() const { return output_meta_.size(); }
  /// Creation order; the engine runs later nodes first.
  uint64_t sequence_nr() const { return sequence_nr_; }

  /// Hooks on the gradient of forward output `output_nr` (Tensor::register_hook on a non-leaf);
  /// a hook may return a replacement gradient or an undefined tensor to keep it.
  unsigned add_tensor_hook(uint32_t output_nr, TensorHook hook);
  void remove_tensor_hook(unsigned id);
  /// Applies the hooks for one output; used by the engine.
  Tensor run_tensor_hooks(uint32_t output_nr, Tensor grad) const;
  /// Tensors whose .grad is kept although they are not leaves (retain_grad), by output number.
  std::vector<std::pair<uint32_t, std::weak_ptr<TensorImpl>>> retained;

 private:
  EdgeList next_edges_;
  OutputMetaList output_meta_;
  uint64_t sequence_nr_;
  struct Hook {
    unsigned id;
    uint32_t output_nr;
    TensorHook fn;
  };
  std::vector<Hook> hooks_;
};

}  // namespace ember::autograd
