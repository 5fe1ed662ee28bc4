#pragma once
// Note [Symbolic shapes]: the compiler's SymNode. A dynamic dimension of a traced input (a Dim
// of the DynamicSpec) becomes a symbol s0, s1, ... of a ShapeEnv, with the Dim's range and the
// example input's size as its hint. Shape inference computes on expressions over the symbols,
// kept in one canonical form so that equal expressions print (and compare) equal: a polynomial
// with integer coefficients over atoms, where an atom is a symbol or an operation that does not
// distribute (s0//2, Mod(s0, 2), Min(s0, 4), Max(...)); + - * stay polynomials, and // and Mod
// by a divisor of every term simplify away.
//
// Deciding a comparison uses the symbols' ranges (interval arithmetic over the expression): a
// broadcast asking "s0 == 1" of a batch in [2, 1024] is answered without a guard. What the
// ranges cannot decide would specialise the program to the example inputs; every symbol stands
// for a declared-dynamic dim, so that raises ConstraintViolationError naming the dim, its range,
// the op and a suggested fix, rather than silently giving a graph that holds for one size.
// Sizes 0 and 1 specialise, as in PyTorch: a symbol's range starts at 2 and an example of size 0
// or 1 cannot trace a dynamic dim. A GraphModule still accepts sizes down to the Dim's declared
// min (runtime_min; torch.export's range_constraints keep a Dim's min of 0 or 1 the same way), so
// Dim("batch", 1, 1024) traced at 8 runs batch 1; outside [runtime_min, max] it raises.
//
// Note [Unbacked symbols]: a size that only the data decides (nonzero's row count, and so a
// boolean mask's selection) is a symbol u<k> in [0, bound] that no input gives: tracing goes on
// with it instead of stopping, and a run of the graph binds it from the result of the call that
// made it (interpreter and generated code alike: detail::run_call). A comparison its range cannot
// decide raises ConstraintViolationError ("Could not guard on data-dependent expression"), as
// PyTorch's GuardOnDataDependentSymNode does; nothing specialises to the example's data.
//
// Note [Assumptions]: a DynamicSpec's assumptions (batch > seq) become facts e >= 0 (or e == 0)
// of the ShapeEnv. Deciding d >= 0 uses each fact as one step of implication: with k*e >= 0
// (k = 1, -1 for an equality, and the ratio k when d's symbolic part is k times e's),
// d >= lo(d - k*e); on top of the ranges. A fact on one symbol (seq <= 512) also narrows that
// symbol's range. The example inputs and every run's inputs are checked against the facts (a
// graph's JSON keeps them). A fact is held as the env's own polynomial, never as a SymInt: a
// SymInt's node owns its env, and an env owning its facts' nodes would be a cycle that is never
// freed.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/core/symint.h"

namespace ember {
struct DynamicSpec;
class Tensor;
}  // namespace ember

namespace ember::fx {

struct Poly;  // symbolic.cpp: an expression's canonical polynomial, with no reference to an env

/// One dynamic dimension of the traced inputs.
struct SymbolInfo {
  std::string name;  // "s0"
  std::string dim;   // the Dim's name ("batch")
  int64_t min = 2;   // the range the trace reasons with
  int64_t max = 0;
  int64_t hint = 0;         // the example input's size
  int64_t runtime_min = 2;  // the smallest size a run accepts: the Dim's min (<= min)
  std::string source;       // "input 0 dim 0"
  /// Unbacked (u0, u1, ...): a data-dependent size (nonzero's count) that no input gives; a
  /// run binds it from the output of the call that made it (Note [Unbacked symbols]).
  bool unbacked = false;
};

class ShapeEnv : public std::enable_shared_from_this<ShapeEnv> {
 public:
  static std::shared_ptr<ShapeEnv> make() { return std::shared_ptr<ShapeEnv>(new ShapeEnv()); }
  /// A new symbol s<k> for Dim `dim` (range [min, max], example size `hint`); runs accept
  /// [runtime_min, max] (runtime_min < 0: min).
  SymInt symbol(const std::string& dim, int64_t min, int64_t max, int64_t hint,
                const std::string& source, int64_t runtime_min = -1);
  /// Note [Unbacked symbols]: a new symbol u<k> for a size only the data decides (`what`: "the
  /// count of nonzero"), in [min, max]. Comparisons its range cannot decide raise (PyTorch's
  /// guard on a data-dependent expression) rather than specialise.
  SymInt unbacked(const std::string& what, int64_t max, const std::string& source, int64_t min = 0);
  const std::vector<SymbolInfo>& symbols() const { return symbols_; }
  /// Note [Assumptions]: a fact `expr >= 0` (`expr == 0` when `equal`) over this env's symbols,
  /// from a DynamicSpec's assumptions (`text` is how the user wrote it). Comparisons use the facts
  /// with the ranges, and every run's inputs are checked against them.
  struct Fact {
    std::shared_ptr<const Poly> expr;  // over this env's symbols; owns no env (no cycle)
    bool equal = false;
    std::string text;
  };
  /// `expr` must be over this env's symbols (ValueError otherwise).
  void assume(const SymInt& expr, bool equal, std::string text);
  const std::vector<Fact>& facts() const { return facts_; }
  /// A fact's expression as a SymInt of this env.
  SymInt fact_expr(const Fact& fact);
  /// The expression `text` (in the canonical form SymInt::str() prints: "2*s0 + 1", "(s0//2)",
  /// "Mod(s0, 3)", "Min(s0, s1)") over this env's symbols; ValueError naming `what` when it does
  /// not parse or names an unknown symbol.
  SymInt parse(const std::string& text, const std::string& what);
  const SymbolInfo* find(const std::string& name) const;

 private:
  ShapeEnv() = default;
  SymInt atom_of(int index);
  std::vector<SymbolInfo> symbols_;
  std::vector<Fact> facts_;
};

/// The env of a symbolic SymInt made by a ShapeEnv (null for a concrete one).
std::shared_ptr<ShapeEnv> env_of(const SymInt& s);
/// The symbol's name when `s` is exactly one symbol ("s0"); nullopt otherwise.
std::optional<std::string> as_symbol(const SymInt& s);

/// `s` as a*symbol + b with a > 0 ({symbol name, a, b}); nullopt for any other expression.
struct Affine {
  std::string symbol;
  int64_t a = 1, b = 0;
};
std::optional<Affine> as_affine(const SymInt& s);

/// Checks a DynamicSpec against the example inputs and gives each input's sizes with its dynamic
/// dims as expressions over the symbols of one new ShapeEnv: one symbol per root Dim (the same
/// Dim is the same symbol), a derived dim its affine function of its root's symbol. Empty when
/// the spec is; an empty entry for a static input. ConstraintViolationError / ValueError name the
/// input, dim and Dim at fault (src/compiler/dynamic_spec.cpp).
std::vector<std::vector<SymInt>> symbolic_sizes(const DynamicSpec& spec,
                                                const std::vector<Tensor>& inputs);

/// The largest value `s` takes over its symbols' ranges (the value itself when concrete).
int64_t upper_bound(const SymInt& s);

/// Values of the symbols (by name) for one run of a graph.
using SymbolValues = std::map<std::string, int64_t>;
/// The value of `s` for `values`; ValueError naming `what` when a symbol has no value.
int64_t evaluate(const SymInt& s, const SymbolValues& values, const std::string& what);
/// Note [Assumptions]: the first of env's facts that `values` break, as the user wrote it with
/// the dims' values ("batch > seq (batch = 3, seq = 5)"); nullopt when all hold.
std::optional<std::string> broken_assumption(const ShapeEnv& env, const SymbolValues& values,
                                             const std::string& what);

}  // namespace ember::fx
