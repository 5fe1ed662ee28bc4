#pragma once
// Note [Kernel IR]: what the scheduler (scheduler.cpp) hands the C++ emitter (codegen.cpp). A
// kernel iterates over a space of `sizes` (its dims x0, x1, ...; a SymInt per dim, so a dynamic
// dim's size is a kernel argument) of which the `reduced` dims are reduced. Its values (temps,
// in evaluation order) are loads, literals, pointwise ops of graph nodes, reductions and the
// softmax output; each knows which dims it varies along (`deps`), so that a value that does not
// vary along the reduced dims is computed once per kept index, and one that varies along none
// is hoisted out of the inner loop. Reads and writes are affine in the dims: an offset plus one
// stride per dim (0: does not vary), from the graph's recorded geometry, so views and broadcasts
// of a buffer cost nothing. A kernel without reduced dims is a pointwise loop over all its
// dims; with some, each reduction is one pass over the reduced dims per kept index, followed by
// one pass that stores the full-size values.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/dtype.h"
#include "ember/core/symint.h"
#include "ember/fx/graph.h"

namespace ember::compiler {

/// Element `offset + sum_f x_f * strides[f]` of kernel buffer `buffer`.
struct Access {
  int buffer = 0;
  SymInt offset = 0;
  std::vector<SymInt> strides;  // one per kernel dim
};

enum class TempKind : uint8_t { Load, Const, Op, Reduce, Cast, SoftmaxOut };

/// What a Reduce temp accumulates over the reduced dims (Note [Kernel IR]).
enum class RedKind : uint8_t {
  Sum,   // sum, in double for float and double (as eager's sum_acc_t)
  Mean,  // sum / count
  Prod,  // product, in double
  Max,   // NaN-propagating
  Min,
  MeanAcc,    // var_mean's mean, kept in double (a float64 temp)
  Var,        // sum of squared deviations from `aux` (a MeanAcc), / max(0, count - param)
  Std,        // sqrt(Var)
  SumExp,     // softmax's sum of exp(x - aux) (aux: the row max), in the element type
  LogSumExp,  // aux + log(sum of exp(x - aux)) in double (aux: the max; itself when not finite)
};

struct Temp {
  TempKind kind = TempKind::Op;
  ScalarType dtype = kFloat32;
  uint64_t deps = 0;      // kernel dims the value varies along (bit f: dim f)
  Access access;          // Load
  std::string literal;    // Const: a C++ expression of type `dtype`
  int node = -1;          // Op: the graph node whose primitive it applies
  std::vector<int> args;  // Op, Reduce (the reduced value), Cast, SoftmaxOut (x, max, sum)
  RedKind red = RedKind::Sum;
  int aux = -1;      // Var: the mean; SumExp: the max
  double param = 0;  // Var/Std: the correction
  bool log = false;  // SoftmaxOut: log_softmax
};

struct Store {
  int temp = 0;
  Access access;
};

struct Kernel {
  std::string name;                  // "fused_mul_add_relu"; made unique in its unit
  std::vector<std::string> origins;  // the graph nodes it computes
  std::vector<SymInt> sizes;         // the iteration space
  uint64_t reduced = 0;              // bit f: dim f is reduced
  std::vector<Temp> temps;
  std::vector<Store> stores;
  /// Kernel buffer i is graph value buffers[i] (a view's root, or a value the kernel writes).
  std::vector<fx::ValueRef> buffers;
  std::vector<ScalarType> buffer_dtypes;
  std::vector<bool> buffer_written;
  /// Inputs it writes in place, once per in-place call it computes (Note [In-place stores]):
  /// their version counters are bumped when it runs, as those calls would bump them.
  std::vector<fx::ValueRef> inplace_writes;
};

/// One step of a lowered graph: a generated kernel, or a graph node run through dispatch as the
/// interpreter runs it.
struct Step {
  bool is_kernel = false;
  int index = 0;  // kernel index, or node index
};

struct Schedule {
  std::vector<Kernel> kernels;
  std::vector<Step> steps;
  /// In-place calls fused into kernels and the inputs they wrote: at run time each call's value
  /// is that input (Note [In-place stores]).
  std::vector<std::pair<fx::ValueRef, fx::ValueRef>> aliases;
};

/// Groups `graph`'s nodes into kernels (Note [Lowering]).
Schedule schedule(const fx::Graph& graph);

/// The C++ text of `kernel` as `extern "C" void <symbol>(char* const* bufs, const int64_t*
/// sizes)`; `size_args` receives the symbolic SymInts that `sizes` carries, in order.
std::string emit_kernel(const Kernel& kernel, const fx::Graph& graph, const std::string& symbol,
                        std::vector<SymInt>& size_args);
/// The includes and helpers every generated unit starts with.
std::string emit_preamble();

}  // namespace ember::compiler
