#pragma once
// Sizes and shape arguments. Note [SymInt]: a SymInt is a concrete int64 in eager mode; the
// compiler's tracer gives it a symbolic expression (a SymNode) for dynamic dimensions. Every
// shape-taking argument of the public API is a SymInt, and shape inference computes on SymInts,
// so tracing needs no API change. Arithmetic on concrete values is plain integer arithmetic (the
// fast path); as soon as one operand is symbolic the SymNode builds the expression. Turning a
// symbolic value into a concrete one (a comparison that steers control flow, a conversion to
// int64_t) is a guard: the SymNode records it, or raises when the dimension was declared dynamic.
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/small_vector.h"

namespace ember {

class SymInt;
using SymNodePtr = std::shared_ptr<class SymNode>;

/// A symbolic integer expression; the compiler implements it. Ember's ops see it only through
/// SymInt's operators.
class SymNode {
 public:
  virtual ~SymNode() = default;
  virtual SymNodePtr add(const SymNodePtr& other) const = 0;
  virtual SymNodePtr sub(const SymNodePtr& other) const = 0;
  virtual SymNodePtr mul(const SymNodePtr& other) const = 0;
  virtual SymNodePtr floordiv(const SymNodePtr& other) const = 0;
  virtual SymNodePtr mod(const SymNodePtr& other) const = 0;
  virtual SymNodePtr min(const SymNodePtr& other) const = 0;
  virtual SymNodePtr max(const SymNodePtr& other) const = 0;
  /// A node for a concrete value in the same expression system (for mixed arithmetic).
  virtual SymNodePtr wrap(int64_t value) const = 0;
  /// The concrete value, recording a guard (or raising for a declared-dynamic dimension); `op`
  /// names the op that asked, for the error message.
  virtual int64_t guard_int(const char* op) const = 0;
  /// Compares with a guard on the outcome: kind is one of "==", "!=", "<", "<=", ">", ">=".
  virtual bool guard_compare(const char* kind, const SymNodePtr& other, const char* op) const = 0;
  /// The expression as text ("2*s0 + 1").
  virtual std::string str() const = 0;
  /// The value it takes for the example inputs the program was traced with (no guard).
  virtual int64_t hint() const = 0;
  /// The value when the expression simplified to a constant (s0 - s0): SymInt's arithmetic then
  /// returns a concrete SymInt.
  virtual std::optional<int64_t> constant() const { return std::nullopt; }
};

/// Note [SymInt representation]: one int64_t, so that a list of concrete sizes costs what a list
/// of int64_t costs (shapes are built on every op). A concrete value is stored as itself. A
/// symbolic one owns a heap-held SymNodePtr whose address is tagged into the reserved range
/// [-2^62, -2^62 + 2^61): no size, stride or index an op produces lies there, and constructing a
/// concrete SymInt from such a value raises ValueError. Copying a concrete SymInt is one branch.
class SymInt {
 public:
  SymInt() = default;
  SymInt(int64_t v) : data_(v) {  // NOLINT: converts implicitly, as c10::SymInt
    if (is_tagged(v)) [[unlikely]]
      unrepresentable(v);
  }
  SymInt(int v) : data_(v) {}                                   // NOLINT
  SymInt(long long v) : SymInt(static_cast<int64_t>(v)) {}      // NOLINT
  SymInt(unsigned long v) : SymInt(static_cast<int64_t>(v)) {}  // NOLINT
  SymInt(unsigned v) : data_(v) {}                              // NOLINT
  explicit SymInt(SymNodePtr node);
  SymInt(const SymInt& o) : data_(o.data_) {
    if (is_tagged(data_)) [[unlikely]]
      data_ = box(*o.node_box());
  }
  SymInt(SymInt&& o) noexcept : data_(o.data_) { o.data_ = 0; }
  SymInt& operator=(const SymInt& o) {
    if (this != &o) *this = SymInt(o);
    return *this;
  }
  SymInt& operator=(SymInt&& o) noexcept {
    std::swap(data_, o.data_);
    return *this;
  }
  ~SymInt() {
    if (is_tagged(data_)) [[unlikely]]
      release();
  }

  bool is_symbolic() const { return is_tagged(data_); }
  /// The concrete value; for a symbolic one this is a guard.
  int64_t guard_int(const char* op = "SymInt") const {
    return is_symbolic() ? node()->guard_int(op) : data_;
  }
  int64_t expect_int() const { return guard_int(); }
  operator int64_t() const { return guard_int(); }  // NOLINT
  /// The expression of a symbolic value (null for a concrete one).
  SymNodePtr node() const { return is_symbolic() ? *node_box() : nullptr; }
  std::string str() const { return is_symbolic() ? node()->str() : std::to_string(data_); }
  /// The value for the traced example inputs, without a guard (the value itself when concrete).
  int64_t hint() const { return is_symbolic() ? node()->hint() : data_; }
  /// The same concrete value, or the same expression (compared in its canonical text; no guard).
  bool same_as(const SymInt& o) const {
    if (both_concrete(*this, o)) return data_ == o.data_;
    return is_symbolic() && o.is_symbolic() && (node() == o.node() || str() == o.str());
  }

  friend SymInt operator+(const SymInt& a, const SymInt& b) {
    if (both_concrete(a, b)) return a.data_ + b.data_;
    return from_node(a.as_node(b)->add(b.as_node(a)));
  }
  friend SymInt operator-(const SymInt& a, const SymInt& b) {
    if (both_concrete(a, b)) return a.data_ - b.data_;
    return from_node(a.as_node(b)->sub(b.as_node(a)));
  }
  friend SymInt operator*(const SymInt& a, const SymInt& b) {
    if (both_concrete(a, b)) return a.data_ * b.data_;
    return from_node(a.as_node(b)->mul(b.as_node(a)));
  }
  /// Python's floor division (sizes are non-negative, where it equals C++'s).
  friend SymInt floordiv(const SymInt& a, const SymInt& b) {
    if (both_concrete(a, b)) {
      EMBER_CHECK(b.data_ != 0, "[SymInt] integer division by zero");
      const int64_t q = a.data_ / b.data_;
      return (a.data_ % b.data_ != 0 && ((a.data_ < 0) != (b.data_ < 0))) ? q - 1 : q;
    }
    return from_node(a.as_node(b)->floordiv(b.as_node(a)));
  }
  friend SymInt mod(const SymInt& a, const SymInt& b) {
    if (both_concrete(a, b)) return a.data_ - floordiv(a, b).data_ * b.data_;
    return from_node(a.as_node(b)->mod(b.as_node(a)));
  }
  friend SymInt sym_min(const SymInt& a, const SymInt& b) {
    if (both_concrete(a, b)) return a.data_ < b.data_ ? a.data_ : b.data_;
    return from_node(a.as_node(b)->min(b.as_node(a)));
  }
  friend SymInt sym_max(const SymInt& a, const SymInt& b) {
    if (both_concrete(a, b)) return a.data_ > b.data_ ? a.data_ : b.data_;
    return from_node(a.as_node(b)->max(b.as_node(a)));
  }
  SymInt& operator+=(const SymInt& b) { return *this = *this + b; }
  SymInt& operator-=(const SymInt& b) { return *this = *this - b; }
  SymInt& operator*=(const SymInt& b) { return *this = *this * b; }

#define EMBER_SYMINT_COMPARE(OP)                                          \
  friend bool operator OP(const SymInt& a, const SymInt& b) {             \
    if (both_concrete(a, b)) return a.data_ OP b.data_;                   \
    return a.as_node(b)->guard_compare(#OP, b.as_node(a), "SymInt " #OP); \
  }
  EMBER_SYMINT_COMPARE(==)
  EMBER_SYMINT_COMPARE(!=)
  EMBER_SYMINT_COMPARE(<)
  EMBER_SYMINT_COMPARE(<=)
  EMBER_SYMINT_COMPARE(>)
  EMBER_SYMINT_COMPARE(>=)
#undef EMBER_SYMINT_COMPARE

 private:
  static constexpr uint64_t kTagMask = uint64_t{0b111} << 61;
  static constexpr uint64_t kTag = uint64_t{0b110} << 61;
  static constexpr bool is_tagged(int64_t v) {
    return (static_cast<uint64_t>(v) & kTagMask) == kTag;
  }
  static bool both_concrete(const SymInt& a, const SymInt& b) {
    return !is_tagged(a.data_) && !is_tagged(b.data_);
  }
  [[noreturn]] static void unrepresentable(int64_t v);
  static SymInt from_node(SymNodePtr node) {
    if (auto c = node->constant()) return SymInt(*c);
    return SymInt(std::move(node));
  }
  static int64_t box(SymNodePtr node);  // a tagged pointer to a new heap-held SymNodePtr
  const SymNodePtr* node_box() const {
    return reinterpret_cast<const SymNodePtr*>(static_cast<uintptr_t>(data_) & ~kTagMask);
  }
  void release();
  // This value as a node of `other`'s expression system (one of the two is symbolic).
  SymNodePtr as_node(const SymInt& other) const {
    return is_symbolic() ? *node_box() : other.node()->wrap(data_);
  }

  int64_t data_ = 0;
};
static_assert(sizeof(SymInt) == sizeof(int64_t));

// Mixed forms with plain integers resolve through SymInt's implicit conversion; these keep
// `size + 1` and `2 * size` from being ambiguous with the int64_t conversion.
#define EMBER_SYMINT_MIXED(OP)                                                     \
  inline SymInt operator OP(const SymInt& a, int64_t b) { return a OP SymInt(b); } \
  inline SymInt operator OP(int64_t a, const SymInt& b) { return SymInt(a) OP b; } \
  inline SymInt operator OP(const SymInt& a, int b) { return a OP SymInt(b); }     \
  inline SymInt operator OP(int a, const SymInt& b) { return SymInt(a) OP b; }
EMBER_SYMINT_MIXED(+)
EMBER_SYMINT_MIXED(-)
EMBER_SYMINT_MIXED(*)
#undef EMBER_SYMINT_MIXED
#define EMBER_SYMINT_MIXED_CMP(OP)                                               \
  inline bool operator OP(const SymInt& a, int64_t b) { return a OP SymInt(b); } \
  inline bool operator OP(int64_t a, const SymInt& b) { return SymInt(a) OP b; } \
  inline bool operator OP(const SymInt& a, int b) { return a OP SymInt(b); }     \
  inline bool operator OP(int a, const SymInt& b) { return SymInt(a) OP b; }
EMBER_SYMINT_MIXED_CMP(==)
EMBER_SYMINT_MIXED_CMP(!=)
EMBER_SYMINT_MIXED_CMP(<)
EMBER_SYMINT_MIXED_CMP(<=)
EMBER_SYMINT_MIXED_CMP(>)
EMBER_SYMINT_MIXED_CMP(>=)
#undef EMBER_SYMINT_MIXED_CMP

inline std::ostream& operator<<(std::ostream& os, const SymInt& s) { return os << s.str(); }

/// Sizes or strides as an op computes them (shape inference, autograd's recorded shapes): a few
/// entries, kept inline (no heap allocation per op).
using SymShape = SmallVector<SymInt, 6>;

/// Equal entries, comparing expressions as expressions (SymInt::same_as: no guard).
inline bool same_as(const SymShape& a, const SymShape& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].same_as(b[i])) return false;
  }
  return true;
}

/// A list of sizes accepted by shape-taking ops: {2, 3}, std::vector<int64_t>, t.sizes(), ...
class SymIntList {
 public:
  SymIntList() = default;
  SymIntList(std::initializer_list<SymInt> l) : v_(l) {}                 // NOLINT
  SymIntList(const std::vector<SymInt>& v) : v_(v) {}                    // NOLINT
  SymIntList(const std::vector<int64_t>& v) : v_(v.begin(), v.end()) {}  // NOLINT
  SymIntList(const int64_t* p, size_t n) : v_(p, p + n) {}
  SymIntList(const SymShape& s) : v_(s.begin(), s.end()) {}  // NOLINT

  size_t size() const { return v_.size(); }
  bool empty() const { return v_.empty(); }
  const SymInt& operator[](size_t i) const { return v_[i]; }
  auto begin() const { return v_.begin(); }
  auto end() const { return v_.end(); }
  const std::vector<SymInt>& vec() const { return v_; }
  /// Concrete values (a guard on symbolic entries).
  std::vector<int64_t> concrete(const char* op = "SymIntList") const {
    std::vector<int64_t> r;
    r.reserve(v_.size());
    for (const auto& s : v_) r.push_back(s.guard_int(op));
    return r;
  }

 private:
  std::vector<SymInt> v_;
};

/// The sizes or strides of a tensor, as returned by Tensor::sizes(): a plain vector.
using IntArrayRef = std::vector<int64_t>;

}  // namespace ember
