// The compiler's SymNode: canonical integer expressions over a ShapeEnv's symbols, with value
// ranges and guards (Note [Symbolic shapes] in symbolic.h).
#include "compiler/symbolic.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <limits>
#include <set>

#include "ember/compiler.h"

namespace ember::fx {

namespace {

constexpr int64_t kInf = std::numeric_limits<int64_t>::max();
constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();

// Saturating arithmetic for ranges: the ends of int64 stand for infinity.
int64_t sat_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return a > 0 ? kInf : kNegInf;
  return r;
}
int64_t sat_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return (a > 0) == (b > 0) ? kInf : kNegInf;
  return r;
}

// Exact arithmetic for coefficients and values: sizes never come near int64's limits, but an
// expression built from hostile input must not wrap.
int64_t checked_add(int64_t a, int64_t b) {
  int64_t r = 0;
  EMBER_CHECK(!__builtin_add_overflow(a, b, &r), "[SymInt] a symbolic expression overflows int64");
  return r;
}
int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  EMBER_CHECK(!__builtin_mul_overflow(a, b, &r), "[SymInt] a symbolic expression overflows int64");
  return r;
}
int64_t floordiv_value(int64_t a, int64_t b) {
  EMBER_CHECK(b != 0, "[SymInt] integer division by zero");
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t mod_value(int64_t a, int64_t b) { return a - floordiv_value(a, b) * b; }

struct Interval {
  int64_t lo, hi;
};

}  // namespace

// Outside the anonymous namespace: symbolic.h names Poly (ShapeEnv::Fact holds one).
enum class AtomKind : uint8_t { Symbol, FloorDiv, Mod, Min, Max };
struct Atom {
  AtomKind kind = AtomKind::Symbol;
  int symbol = -1;                   // AtomKind::Symbol
  std::shared_ptr<const Poly> a, b;  // the operands of the others
  std::string text;                  // canonical
};
using AtomPtr = std::shared_ptr<const Atom>;
using Monomial = std::vector<AtomPtr>;  // sorted by text; empty for the constant term

// A polynomial with integer coefficients over atoms, keyed by the monomial's text ("" for the
// constant term) so that equal polynomials have equal terms.
struct Poly {
  std::map<std::string, std::pair<Monomial, int64_t>> terms;

  static Poly constant(int64_t c) {
    Poly p;
    if (c != 0) p.terms[""] = {{}, c};
    return p;
  }
  static Poly atom(AtomPtr a) {
    Poly p;
    p.terms[a->text] = {{a}, 1};
    return p;
  }
  std::optional<int64_t> as_constant() const {
    if (terms.empty()) return 0;
    if (terms.size() == 1 && terms.begin()->first.empty()) return terms.begin()->second.second;
    return std::nullopt;
  }
  void add_term(const std::string& key, const Monomial& m, int64_t c) {
    auto [it, fresh] = terms.try_emplace(key, m, c);
    if (!fresh) it->second.second = checked_add(it->second.second, c);
    if (it->second.second == 0) terms.erase(it);
  }
};

namespace {

std::string mono_key(const Monomial& m) {
  std::string s;
  for (const AtomPtr& a : m) s += (s.empty() ? "" : "*") + a->text;
  return s;
}

Poly add(const Poly& a, const Poly& b, int64_t sign = 1) {
  Poly r = a;
  for (const auto& [key, term] : b.terms)
    r.add_term(key, term.first, checked_mul(sign, term.second));
  return r;
}

Poly mul(const Poly& a, const Poly& b) {
  Poly r;
  for (const auto& [ka, ta] : a.terms) {
    for (const auto& [kb, tb] : b.terms) {
      Monomial m = ta.first;
      m.insert(m.end(), tb.first.begin(), tb.first.end());
      std::sort(m.begin(), m.end(),
                [](const AtomPtr& x, const AtomPtr& y) { return x->text < y->text; });
      r.add_term(mono_key(m), m, checked_mul(ta.second, tb.second));
    }
  }
  return r;
}

std::string text(const Poly& p) {
  std::string s;
  auto put = [&](int64_t c, const std::string& mono) {
    const bool neg = c < 0;
    const int64_t mag = neg ? -c : c;
    std::string t =
        mono.empty() ? std::to_string(mag) : (mag == 1 ? mono : std::to_string(mag) + "*" + mono);
    if (s.empty()) {
      s = (neg ? "-" : "") + t;
    } else {
      s += (neg ? " - " : " + ") + t;
    }
  };
  for (const auto& [key, term] : p.terms) {
    if (!key.empty()) put(term.second, key);
  }
  if (auto it = p.terms.find(""); it != p.terms.end()) put(it->second.second, "");
  return s.empty() ? "0" : s;
}

// A single atom with coefficient 1, or a non-negative constant: needs no parentheses as an
// operand of //.
std::string operand(const Poly& p) {
  const std::string t = text(p);
  if (auto c = p.as_constant()) return *c >= 0 ? t : "(" + t + ")";
  const bool single = p.terms.size() == 1 && p.terms.begin()->second.second == 1 &&
                      p.terms.begin()->second.first.size() == 1;
  return single ? t : "(" + t + ")";
}

// p as a*symbol + b (a != 0), if it is one.
struct OneSymbol {
  int symbol;
  int64_t a, b;
};
std::optional<OneSymbol> single_symbol(const Poly& p) {
  std::optional<OneSymbol> r;
  int64_t b = 0;
  for (const auto& [key, term] : p.terms) {
    if (key.empty()) {
      b = term.second;
    } else if (r || term.first.size() != 1 || term.first[0]->kind != AtomKind::Symbol) {
      return std::nullopt;
    } else {
      r = OneSymbol{term.first[0]->symbol, term.second, 0};
    }
  }
  if (r) r->b = b;
  return r;
}

// The indices of the symbols p mentions.
void symbols_in(const Poly& p, std::set<int>& out) {
  for (const auto& [key, term] : p.terms) {
    for (const AtomPtr& a : term.first) {
      if (a->kind == AtomKind::Symbol) {
        out.insert(a->symbol);
      } else {
        symbols_in(*a->a, out);
        symbols_in(*a->b, out);
      }
    }
  }
}

// ---- ShapeEnv-bound expressions ------------------------------------------------------------

class Expr final : public SymNode {
 public:
  Expr(std::shared_ptr<ShapeEnv> env, Poly poly) : env_(std::move(env)), poly_(std::move(poly)) {}
  const std::shared_ptr<ShapeEnv>& env() const { return env_; }
  const Poly& poly() const { return poly_; }

  SymNodePtr add(const SymNodePtr& o) const override { return make(fx::add(poly_, of(o))); }
  SymNodePtr sub(const SymNodePtr& o) const override { return make(fx::add(poly_, of(o), -1)); }
  SymNodePtr mul(const SymNodePtr& o) const override { return make(fx::mul(poly_, of(o))); }
  SymNodePtr floordiv(const SymNodePtr& o) const override { return make(div_or_mod(of(o), false)); }
  SymNodePtr mod(const SymNodePtr& o) const override { return make(div_or_mod(of(o), true)); }
  SymNodePtr min(const SymNodePtr& o) const override { return make(min_max(of(o), false)); }
  SymNodePtr max(const SymNodePtr& o) const override { return make(min_max(of(o), true)); }
  SymNodePtr wrap(int64_t v) const override { return make(Poly::constant(v)); }
  std::optional<int64_t> constant() const override { return poly_.as_constant(); }
  std::string str() const override { return text(poly_); }
  int64_t hint() const override {
    return eval(poly_, [&](int s) { return info(s).hint; });
  }

  int64_t upper() const { return range(poly_).hi; }

  int64_t guard_int(const char* op) const override {
    const Interval r = bounds(poly_);
    if (r.lo == r.hi) return r.lo;
    violation(op, poly_, "the concrete value of " + str(), std::nullopt);
  }

  bool guard_compare(const char* kind, const SymNodePtr& o, const char* op) const override {
    const Poly d = fx::add(poly_, of(o), -1);
    const std::string k = kind;
    const Interval r = bounds(d);
    std::optional<bool> decided;
    if (k == "==" || k == "!=") {
      if (r.lo == 0 && r.hi == 0) decided = true;
      if (r.lo > 0 || r.hi < 0) decided = false;
      if (decided && k == "!=") decided = !*decided;
    } else if (k == "<") {
      if (r.hi < 0) decided = true;
      if (r.lo >= 0) decided = false;
    } else if (k == "<=") {
      if (r.hi <= 0) decided = true;
      if (r.lo > 0) decided = false;
    } else if (k == ">") {
      if (r.lo > 0) decided = true;
      if (r.hi <= 0) decided = false;
    } else if (k == ">=") {
      if (r.lo >= 0) decided = true;
      if (r.hi < 0) decided = false;
    } else {
      EMBER_THROW(ValueError, "[SymInt] unknown comparison '", kind, "'");
    }
    if (decided) return *decided;
    const std::string other = text(of(o));
    violation(op, d, str() + " " + k + " " + other, k);
  }

  // The value with each symbol's value given by `value(symbol index)`.
  static int64_t eval(const Poly& p, const std::function<int64_t(int)>& value) {
    int64_t total = 0;
    for (const auto& [key, term] : p.terms) {
      int64_t prod = term.second;
      for (const AtomPtr& a : term.first) prod = checked_mul(prod, eval_atom(*a, value));
      total = checked_add(total, prod);
    }
    return total;
  }

 private:
  const SymbolInfo& info(int s) const { return env_->symbols()[s]; }

  static int64_t eval_atom(const Atom& a, const std::function<int64_t(int)>& value) {
    if (a.kind == AtomKind::Symbol) return value(a.symbol);
    const int64_t x = eval(*a.a, value), y = eval(*a.b, value);
    switch (a.kind) {
      case AtomKind::FloorDiv:
        return floordiv_value(x, y);
      case AtomKind::Mod:
        return mod_value(x, y);
      case AtomKind::Min:
        return std::min(x, y);
      case AtomKind::Max:
        return std::max(x, y);
      case AtomKind::Symbol:
        break;
    }
    return value(a.symbol);
  }

  static Interval product(Interval x, Interval y) {
    const int64_t c[4] = {sat_mul(x.lo, y.lo), sat_mul(x.lo, y.hi), sat_mul(x.hi, y.lo),
                          sat_mul(x.hi, y.hi)};
    return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
  }

  // Term by term, then tightened by two rewrites that the terms alone miss:
  //  - the atoms every non-constant term shares come out first: 32*s0*s1 - 32*s1 is
  //    s1 * (32*s0 - 32), which the ranges s0, s1 >= 2 put above 0 (a view's stride against a
  //    larger one, x < x*y);
  //  - Min(a, b) <= a, b and Max(a, b) >= a, b: a term k*Min(a, b) is bounded on one side by k*a
  //    and by k*b (a slice x[:5] of a dynamic dim: s0 - Min(5, s0) >= 0).
  Interval range(const Poly& p) const {
    Interval r{0, 0};
    for (const auto& [key, term] : p.terms) {
      Interval t{term.second, term.second};
      for (const AtomPtr& a : term.first) t = product(t, atom_range(*a));
      r = {sat_add(r.lo, t.lo), sat_add(r.hi, t.hi)};
    }
    if (auto f = factored_range(p)) r = {std::max(r.lo, f->lo), std::min(r.hi, f->hi)};
    for (const auto& [key, term] : p.terms) {
      const AtomKind kind = term.first.size() == 1 ? term.first[0]->kind : AtomKind::Symbol;
      if (kind != AtomKind::Min && kind != AtomKind::Max) continue;
      const Atom& m = *term.first[0];
      const int64_t k = term.second;
      Poly without = p;
      without.terms.erase(key);
      const Interval x = range(fx::add(without, fx::mul(*m.a, Poly::constant(k))));
      const Interval y = range(fx::add(without, fx::mul(*m.b, Poly::constant(k))));
      if ((kind == AtomKind::Min) == (k < 0)) {
        r.lo = std::max({r.lo, x.lo, y.lo});  // p >= p with Min(a, b) replaced by a, and by b
      } else {
        r.hi = std::min({r.hi, x.hi, y.hi});
      }
    }
    return r;
  }

  // p's range with the atoms its non-constant terms share taken out; none when they share none.
  std::optional<Interval> factored_range(const Poly& p) const {
    const auto constant = p.terms.find("");
    const int64_t c = constant == p.terms.end() ? 0 : constant->second.second;
    if (p.terms.size() - (constant == p.terms.end() ? 0 : 1) < 2) return std::nullopt;
    const auto by_text = [](const AtomPtr& x, const AtomPtr& y) { return x->text < y->text; };
    Monomial common = std::prev(p.terms.end())->second.first;  // "" sorts first
    for (const auto& [key, term] : p.terms) {
      if (key.empty()) continue;
      Monomial kept;
      std::set_intersection(common.begin(), common.end(), term.first.begin(), term.first.end(),
                            std::back_inserter(kept), by_text);
      common = std::move(kept);
    }
    if (common.empty()) return std::nullopt;
    Poly rest;  // p - c with `common` taken out of every term
    for (const auto& [key, term] : p.terms) {
      if (key.empty()) continue;
      Monomial m;
      std::set_difference(term.first.begin(), term.first.end(), common.begin(), common.end(),
                          std::back_inserter(m), by_text);
      rest.add_term(mono_key(m), m, term.second);
    }
    Interval f = range(rest);
    for (const AtomPtr& a : common) f = product(f, atom_range(*a));
    return Interval{sat_add(f.lo, c), sat_add(f.hi, c)};
  }

  // range(p) tightened by the env's facts (Note [Assumptions]): p = (p - k*e) + k*e, and
  // k*e >= 0 for k > 0 (<= 0 for k < 0; == 0 for an equality) bounds p by p - k*e's range.
  Interval bounds(const Poly& p) const {
    Interval r = range(p);
    for (const ShapeEnv::Fact& f : env_->facts()) {
      const Poly& e = *f.expr;
      std::vector<int64_t> ks = {1, -1};
      if (auto k = ratio(p, e); k && *k != 1 && *k != -1) ks.push_back(*k);
      for (int64_t k : ks) {
        const Interval rest = range(fx::add(p, fx::mul(e, Poly::constant(k)), -1));
        if (f.equal || k > 0) r.lo = std::max(r.lo, rest.lo);
        if (f.equal || k < 0) r.hi = std::min(r.hi, rest.hi);
      }
    }
    return r;
  }

  // k when p's non-constant terms are k times e's (an integer k != 0).
  static std::optional<int64_t> ratio(const Poly& p, const Poly& e) {
    std::optional<int64_t> k;
    size_t matched = 0;
    for (const auto& [key, term] : e.terms) {
      if (key.empty()) continue;
      auto it = p.terms.find(key);
      if (it == p.terms.end() || it->second.second % term.second != 0) return std::nullopt;
      const int64_t q = it->second.second / term.second;
      if (k && *k != q) return std::nullopt;
      k = q;
      ++matched;
    }
    const size_t symbolic = p.terms.size() - (p.terms.count("") ? 1 : 0);
    return matched == symbolic ? k : std::nullopt;
  }

  Interval atom_range(const Atom& a) const {
    if (a.kind == AtomKind::Symbol) return {info(a.symbol).min, info(a.symbol).max};
    const Interval x = range(*a.a), y = range(*a.b);
    switch (a.kind) {
      case AtomKind::FloorDiv:
        if (y.lo > 0 && x.lo >= 0) {
          return {y.hi == kInf ? 0 : x.lo / y.hi, x.hi == kInf ? kInf : x.hi / y.lo};
        }
        return {kNegInf, kInf};
      case AtomKind::Mod:  // floor mod by a positive divisor lies in [0, divisor)
        if (y.lo > 0) return {0, std::min(sat_add(y.hi, -1), x.lo >= 0 ? x.hi : kInf)};
        return {kNegInf, kInf};
      case AtomKind::Min:
        return {std::min(x.lo, y.lo), std::min(x.hi, y.hi)};
      case AtomKind::Max:
        return {std::max(x.lo, y.lo), std::max(x.hi, y.hi)};
      case AtomKind::Symbol:
        break;
    }
    return {kNegInf, kInf};
  }

  const Poly& of(const SymNodePtr& o) const {
    const auto* e = dynamic_cast<const Expr*>(o.get());
    EMBER_CHECK_VALUE(e && e->env_ == env_,
                      "[SymInt] an expression combines sizes of two different traces");
    return e->poly_;
  }

  SymNodePtr make(Poly p) const { return std::make_shared<Expr>(env_, std::move(p)); }

  Poly atom(AtomKind kind, Poly a, Poly b, std::string t) const {
    auto at = std::make_shared<Atom>();
    at->kind = kind;
    at->a = std::make_shared<const Poly>(std::move(a));
    at->b = std::make_shared<const Poly>(std::move(b));
    at->text = std::move(t);
    return Poly::atom(std::move(at));
  }

  // floordiv or Mod, simplified: for a positive constant divisor c, the terms whose coefficients
  // c divides leave the division exactly, and when the rest lies in [0, c) it is the remainder.
  Poly div_or_mod(const Poly& b, bool want_mod) const {
    const auto cb = b.as_constant();
    if (auto ca = poly_.as_constant(); ca && cb) {
      return Poly::constant(want_mod ? mod_value(*ca, *cb) : floordiv_value(*ca, *cb));
    }
    if (cb) {
      EMBER_CHECK(*cb != 0, "[SymInt] integer division by zero");
      if (*cb > 0) {
        Poly quotient, rest;
        for (const auto& [key, term] : poly_.terms) {
          if (term.second % *cb == 0) {
            quotient.add_term(key, term.first, term.second / *cb);
          } else {
            rest.add_term(key, term.first, term.second);
          }
        }
        const Interval r = range(rest);
        if (r.lo >= 0 && r.hi < *cb) return want_mod ? rest : quotient;
        if (want_mod) {
          if (auto c = rest.as_constant()) return Poly::constant(mod_value(*c, *cb));
          return atom(AtomKind::Mod, rest, b, "Mod(" + text(rest) + ", " + text(b) + ")");
        }
      }
    } else if (auto q = exact_quotient(b); q && range(b).lo > 0) {
      return want_mod ? Poly::constant(0) : *q;  // b divides every term (s0*s1 // s1)
    }
    if (want_mod) return atom(AtomKind::Mod, poly_, b, "Mod(" + text(poly_) + ", " + text(b) + ")");
    return atom(AtomKind::FloorDiv, poly_, b, "(" + operand(poly_) + "//" + operand(b) + ")");
  }

  // This / b when b is one term that divides every term of this exactly.
  std::optional<Poly> exact_quotient(const Poly& b) const {
    if (b.terms.size() != 1) return std::nullopt;
    const auto& [bm, bc] = b.terms.begin()->second;
    Poly q;
    for (const auto& [key, term] : poly_.terms) {
      if (term.second % bc != 0) return std::nullopt;
      Monomial rest = term.first;
      for (const AtomPtr& a : bm) {
        auto it = std::find_if(rest.begin(), rest.end(),
                               [&](const AtomPtr& x) { return x->text == a->text; });
        if (it == rest.end()) return std::nullopt;
        rest.erase(it);
      }
      q.add_term(mono_key(rest), rest, term.second / bc);
    }
    return q;
  }

  Poly min_max(const Poly& b, bool want_max) const {
    const Interval d = bounds(fx::add(poly_, b, -1));
    if (d.hi <= 0) return want_max ? b : poly_;  // this <= b
    if (d.lo >= 0) return want_max ? poly_ : b;
    // Commutative: the operands in text order.
    const bool swap = text(b) < text(poly_);
    const Poly& x = swap ? b : poly_;
    const Poly& y = swap ? poly_ : b;
    return atom(want_max ? AtomKind::Max : AtomKind::Min, x, y,
                std::string(want_max ? "Max(" : "Min(") + text(x) + ", " + text(y) + ")");
  }

  // For `d kind 0` with d = a*s + b linear in one symbol: the widest range of s around its hint
  // where the outcome stays what it is for the example (so a Dim with that range traces).
  std::optional<Interval> keep_range(const Poly& d, int s, const std::string& kind) const {
    for (const auto& [key, term] : d.terms) {
      if (key.empty()) continue;
      if (term.first.size() != 1 || term.first[0]->kind != AtomKind::Symbol) return std::nullopt;
    }
    const SymbolInfo& si = info(s);
    auto at = [&](int64_t v) { return eval(d, [&](int) { return v; }); };
    auto holds = [&](int64_t v) {
      const int64_t x = at(v);
      if (kind == "==") return x == 0;
      if (kind == "!=") return x != 0;
      if (kind == "<") return x < 0;
      if (kind == "<=") return x <= 0;
      if (kind == ">") return x > 0;
      return x >= 0;
    };
    const bool want = holds(si.hint);
    if (kind == "!=" || kind == "==") {
      // d = a*s + b is zero at one point p at most: "!=" holds up to p, "==" only at p.
      int64_t a = 0, b = 0;
      for (const auto& [key, term] : d.terms) (key.empty() ? b : a) = term.second;
      if (kind == "==" || a == 0 || b % a != 0) return Interval{si.hint, si.hint};
      const int64_t p = -b / a;
      if (p == si.hint) return Interval{si.hint, si.hint};
      if (p >= si.min && p < si.hint) return Interval{p + 1, si.max};
      if (p <= si.max && p > si.hint) return Interval{si.min, p - 1};
      return Interval{si.min, si.max};
    }
    // Linear: an inequality changes its outcome at most once on each side of the hint, so a
    // binary search on each side finds the edge.
    auto edge = [&](int64_t from,
                    int64_t to) {  // the last value from `from` toward `to` that keeps
      int64_t good = from, bad = to;
      if (holds(to) == want) return to;
      while (good != bad && (good < bad ? bad - good : good - bad) > 1) {
        const int64_t mid = good + (bad - good) / 2;
        (holds(mid) == want ? good : bad) = mid;
      }
      return good;
    };
    return Interval{edge(si.hint, si.min), edge(si.hint, si.max)};
  }

  [[noreturn]] void violation(const char* op, const Poly& d, const std::string& need,
                              const std::optional<std::string>& kind) const {
    std::set<int> syms;
    symbols_in(d, syms);
    for (int s : syms) {
      const SymbolInfo& si = info(s);
      if (!si.unbacked) continue;
      EMBER_THROW(ConstraintViolationError, "[", op, "] Could not guard on data-dependent ",
                  "expression: ", op, " needs ", need, ", but ", si.name, " is ", si.dim, " (",
                  si.source, "), in [0, ", si.max, "], known only when the graph runs. ",
                  "Suggested fix: write the program so that it does not depend on that size's ",
                  "value (or trace with TracingMode::Real to specialise to the example's data)");
    }
    std::string dims, about;
    for (int s : syms) {
      const SymbolInfo& si = info(s);
      dims += (dims.empty() ? "" : ", ") + si.dim;
      about += (about.empty() ? "" : "; ") + si.dim + " = " + si.name + " (" + si.source +
               ") in [" + std::to_string(si.min) + ", " + std::to_string(si.max) +
               "], traced with " + std::to_string(si.hint);
    }
    std::string fix;
    if (syms.size() == 1 && kind) {
      const SymbolInfo& si = info(*syms.begin());
      if (auto r = keep_range(d, *syms.begin(), *kind); r && r->lo != r->hi) {
        fix = si.dim + " = Dim(\"" + si.dim + "\", min=" + std::to_string(r->lo) +
              ", max=" + std::to_string(r->hi) + ")";
      }
    }
    if (fix.empty()) {
      fix = "make " + dims + " static (drop it from dynamic_shapes), or read sizes with " +
            "sym_size()/sym_sizes() where the program does not need a concrete value";
    }
    EMBER_THROW(
        ConstraintViolationError, "[", op, "] Constraints violated (", dims, ")! ", op, " needs ",
        need, ", which the declared range does not decide (", about,
        "): the traced program would specialise to the example inputs. Suggested fix: ", fix);
  }

  std::shared_ptr<ShapeEnv> env_;
  Poly poly_;
};

const Expr* expr_of(const SymInt& s) {
  return s.is_symbolic() ? dynamic_cast<const Expr*>(s.node().get()) : nullptr;
}

}  // namespace

// "s3", "u4" (snprintf: g++ 12 warns falsely on "s" + std::to_string once inlined here).
static std::string symbol_name(char prefix, int index) {
  char name[24];
  std::snprintf(name, sizeof name, "%c%d", prefix, index);
  return name;
}

SymInt ShapeEnv::symbol(const std::string& dim, int64_t min, int64_t max, int64_t hint,
                        const std::string& source, int64_t runtime_min) {
  const int index = static_cast<int>(symbols_.size());
  symbols_.push_back({symbol_name('s', index), dim, min, max, hint,
                      runtime_min < 0 ? min : std::min(runtime_min, min), source});
  return atom_of(index);
}

SymInt ShapeEnv::unbacked(const std::string& what, int64_t max, const std::string& source,
                          int64_t min) {
  EMBER_CHECK_VALUE(0 <= min && min <= max, "[ShapeEnv] an unbacked size needs 0 <= min <= max, ",
                    "got [", min, ", ", max, "] for ", what);
  const int index = static_cast<int>(symbols_.size());
  // No example gives it a value; the hint (what meta tensors size with) is a typical size, not
  // a fact: decisions use the range alone.
  symbols_.push_back({symbol_name('u', index), what, min, max, std::clamp<int64_t>(2, min, max),
                      min, source, true});
  return atom_of(index);
}

SymInt ShapeEnv::atom_of(int index) {
  auto a = std::make_shared<Atom>();
  a->symbol = index;
  a->text = symbols_[static_cast<size_t>(index)].name;
  return SymInt(std::make_shared<Expr>(shared_from_this(), Poly::atom(std::move(a))));
}

void ShapeEnv::assume(const SymInt& expr, bool equal, std::string text) {
  const Expr* e = expr_of(expr);
  EMBER_CHECK_VALUE(!expr.is_symbolic() || (e && e->env().get() == this),
                    "[ShapeEnv] the assumption ", text, " is over another trace's sizes");
  auto poly = std::make_shared<const Poly>(e ? e->poly() : Poly::constant(expr.hint()));
  if (auto one = single_symbol(*poly)) {
    // a*s + b >= 0 narrows s's range (seq <= 512): s >= ceil(-b/a) for a > 0, s <= floor(b/-a)
    // for a < 0; an equality is that and its negation.
    SymbolInfo& si = symbols_[static_cast<size_t>(one->symbol)];
    auto narrow = [&](int64_t a, int64_t b) {
      if (a > 0) {
        si.min = std::max(si.min, -floordiv_value(b, a));
      } else {
        si.max = std::min(si.max, floordiv_value(b, -a));
      }
    };
    narrow(one->a, one->b);
    if (equal) narrow(-one->a, -one->b);
    EMBER_CHECK_VALUE(si.min <= si.max, "[ShapeEnv] the assumption ", text, " leaves no value for ",
                      si.dim, " (", si.name, ")");
  }
  facts_.push_back({std::move(poly), equal, std::move(text)});
}

SymInt ShapeEnv::fact_expr(const Fact& fact) {
  return SymInt(std::make_shared<Expr>(shared_from_this(), *fact.expr));
}

const SymbolInfo* ShapeEnv::find(const std::string& name) const {
  for (const SymbolInfo& s : symbols_) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

namespace {

// Reads the canonical text back (recursive descent; the grammar of Poly's printer).
class Parser {
 public:
  Parser(ShapeEnv& env, const std::string& text, const std::string& what)
      : env_(env), s_(text), what_(what) {}

  SymInt parse() {
    SymInt v = expr();
    skip();
    if (pos_ != s_.size()) fail("unexpected '" + s_.substr(pos_, 1) + "'");
    return v;
  }

 private:
  void skip() {
    while (pos_ < s_.size() && s_[pos_] == ' ') ++pos_;
  }
  bool eat(const std::string& tok) {
    skip();
    if (s_.compare(pos_, tok.size(), tok) != 0) return false;
    pos_ += tok.size();
    return true;
  }
  [[noreturn]] void fail(const std::string& why) const {
    EMBER_THROW(ValueError, "[", what_, "] cannot read the size expression '", s_, "': ", why);
  }
  SymInt expr() {
    if (++depth_ > 64) fail("nested more than 64 levels");
    SymInt v = term();
    while (true) {
      if (eat("+")) {
        v = v + term();
      } else if (eat("-")) {
        v = v - term();
      } else {
        break;
      }
    }
    --depth_;
    return v;
  }
  SymInt term() {
    SymInt v = unary();
    while (true) {
      if (eat("//")) {
        v = floordiv(v, unary());
      } else if (eat("*")) {
        v = v * unary();
      } else {
        return v;
      }
    }
  }
  SymInt unary() {
    if (eat("-")) return SymInt(0) - unary();
    return primary();
  }
  SymInt primary() {
    skip();
    if (eat("(")) {
      SymInt v = expr();
      if (!eat(")")) fail("expected ')'");
      return v;
    }
    if (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
      int64_t v = 0;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s_[pos_] - '0', &v)) {
          fail("a number overflows int64");
        }
        ++pos_;
      }
      return SymInt(v);
    }
    std::string name;
    while (pos_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) {
      name += s_[pos_++];
    }
    if (name.empty())
      fail(pos_ < s_.size() ? "unexpected '" + s_.substr(pos_, 1) + "'" : "unexpected end");
    if (name == "Mod" || name == "Min" || name == "Max") {
      if (!eat("(")) fail("expected '(' after " + name);
      SymInt a = expr();
      if (!eat(",")) fail("expected ',' in " + name);
      SymInt b = expr();
      if (!eat(")")) fail("expected ')' after " + name);
      return name == "Mod" ? mod(a, b) : name == "Min" ? sym_min(a, b) : sym_max(a, b);
    }
    const auto& syms = env_.symbols();
    for (size_t i = 0; i < syms.size(); ++i) {
      if (syms[i].name == name) return symbol(static_cast<int>(i));
    }
    fail("unknown symbol '" + name + "'");
  }
  SymInt symbol(int index) {
    auto a = std::make_shared<Atom>();
    a->symbol = index;
    a->text = env_.symbols()[index].name;
    return SymInt(std::make_shared<Expr>(env_.shared_from_this(), Poly::atom(std::move(a))));
  }

  ShapeEnv& env_;
  const std::string& s_;
  const std::string& what_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

SymInt ShapeEnv::parse(const std::string& text, const std::string& what) {
  return Parser(*this, text, what).parse();
}

std::shared_ptr<ShapeEnv> env_of(const SymInt& s) {
  const Expr* e = expr_of(s);
  return e ? e->env() : nullptr;
}

std::optional<std::string> as_symbol(const SymInt& s) {
  const Expr* e = expr_of(s);
  if (!e || e->poly().terms.size() != 1) return std::nullopt;
  const auto& [key, term] = *e->poly().terms.begin();
  if (term.second != 1 || term.first.size() != 1 || term.first[0]->kind != AtomKind::Symbol) {
    return std::nullopt;
  }
  return key;
}

std::optional<Affine> as_affine(const SymInt& s) {
  const Expr* e = expr_of(s);
  const auto one = e ? single_symbol(e->poly()) : std::nullopt;
  if (!one || one->a <= 0) return std::nullopt;
  return Affine{e->env()->symbols()[static_cast<size_t>(one->symbol)].name, one->a, one->b};
}

int64_t upper_bound(const SymInt& s) {
  const Expr* e = expr_of(s);
  return e ? e->upper() : s.hint();
}

namespace {
int64_t evaluate_poly(const ShapeEnv& env, const Poly& p, const SymbolValues& values,
                      const std::string& what) {
  return Expr::eval(p, [&](int index) {
    const std::string& name = env.symbols()[static_cast<size_t>(index)].name;
    auto it = values.find(name);
    EMBER_CHECK_VALUE(it != values.end(), "[", what, "] symbol ", name, " has no value");
    return it->second;
  });
}
}  // namespace

int64_t evaluate(const SymInt& s, const SymbolValues& values, const std::string& what) {
  const Expr* e = expr_of(s);
  if (!e) {
    EMBER_CHECK_VALUE(!s.is_symbolic(), "[", what, "] a size expression of an unknown kind");
    return s.hint();
  }
  return evaluate_poly(*e->env(), e->poly(), values, what);
}

std::optional<std::string> broken_assumption(const ShapeEnv& env, const SymbolValues& values,
                                             const std::string& what) {
  for (const ShapeEnv::Fact& f : env.facts()) {
    const int64_t v = evaluate_poly(env, *f.expr, values, what);
    if (f.equal ? v == 0 : v >= 0) continue;
    std::set<int> syms;
    symbols_in(*f.expr, syms);
    std::string given;
    for (int s : syms) {
      const SymbolInfo& si = env.symbols()[static_cast<size_t>(s)];
      given += (given.empty() ? "" : ", ") + si.dim + " = " + std::to_string(values.at(si.name));
    }
    return f.text + " (" + given + ")";
  }
  return std::nullopt;
}

}  // namespace ember::fx
