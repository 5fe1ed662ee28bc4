// Note [SymInt] and Note [SymInt representation]: concrete arithmetic with Python's semantics,
// symbolic expressions built through a SymNode, guards, ownership of the heap-held nodes, the
// reserved range, and shape inference (Note [Inference]) on symbolic sizes.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "dispatch/primitive.h"
#include "primitives/binary.h"
#include "primitives/matmul.h"
#include "primitives/reduction.h"
#include "primitives/shape.h"

namespace ember::test {
namespace {

// A toy expression system, as the compiler's will be: each node is its text plus a hint (the
// value the symbol takes in the example being traced); guards evaluate on hints and are logged.
struct Log {
  std::vector<std::string> guards;
};

class ToyNode : public SymNode {
 public:
  ToyNode(std::string expr, int64_t hint, Log* log)
      : expr_(std::move(expr)), hint_(hint), log_(log) {}
  static SymInt symbol(const std::string& name, int64_t hint, Log* log) {
    return SymInt(std::make_shared<ToyNode>(name, hint, log));
  }
  int64_t hint() const override { return hint_; }
  SymNodePtr add(const SymNodePtr& o) const override { return binary("+", o, hint_ + hint(o)); }
  SymNodePtr sub(const SymNodePtr& o) const override { return binary("-", o, hint_ - hint(o)); }
  SymNodePtr mul(const SymNodePtr& o) const override { return binary("*", o, hint_ * hint(o)); }
  SymNodePtr floordiv(const SymNodePtr& o) const override {
    return binary("//", o, hint_ / hint(o));  // hints are non-negative sizes here
  }
  SymNodePtr mod(const SymNodePtr& o) const override { return binary("%", o, hint_ % hint(o)); }
  SymNodePtr min(const SymNodePtr& o) const override {
    return call("min", o, std::min(hint_, hint(o)));
  }
  SymNodePtr max(const SymNodePtr& o) const override {
    return call("max", o, std::max(hint_, hint(o)));
  }
  SymNodePtr wrap(int64_t v) const override {
    return std::make_shared<ToyNode>(std::to_string(v), v, log_);
  }
  int64_t guard_int(const char* op) const override {
    log_->guards.push_back(std::string(op) + ": " + expr_ + " == " + std::to_string(hint_));
    return hint_;
  }
  bool guard_compare(const char* kind, const SymNodePtr& o, const char* op) const override {
    const std::string k = kind;
    const int64_t a = hint_, b = hint(o);
    const bool r = k == "=="   ? a == b
                   : k == "!=" ? a != b
                   : k == "<"  ? a < b
                   : k == "<=" ? a <= b
                   : k == ">"  ? a > b
                               : a >= b;
    log_->guards.push_back(std::string(op) + ": " + expr_ + " " + k + " " + o->str() + " is " +
                           (r ? "true" : "false"));
    return r;
  }
  std::string str() const override { return expr_; }

 private:
  static int64_t hint(const SymNodePtr& o) { return static_cast<const ToyNode&>(*o).hint_; }
  SymNodePtr binary(const char* op, const SymNodePtr& o, int64_t h) const {
    return std::make_shared<ToyNode>("(" + expr_ + " " + op + " " + o->str() + ")", h, log_);
  }
  SymNodePtr call(const char* f, const SymNodePtr& o, int64_t h) const {
    return std::make_shared<ToyNode>(std::string(f) + "(" + expr_ + ", " + o->str() + ")", h, log_);
  }
  std::string expr_;
  int64_t hint_;
  Log* log_;
};

TEST(SymInt, ConcreteArithmeticFollowsPython) {
  // Python: -7 // 2 == -4, -7 % 2 == 1, 7 // -2 == -4, 7 % -2 == -1.
  EXPECT_EQ(floordiv(SymInt(-7), SymInt(2)).guard_int(), -4);
  EXPECT_EQ(mod(SymInt(-7), SymInt(2)).guard_int(), 1);
  EXPECT_EQ(floordiv(SymInt(7), SymInt(-2)).guard_int(), -4);
  EXPECT_EQ(mod(SymInt(7), SymInt(-2)).guard_int(), -1);
  EXPECT_EQ(floordiv(SymInt(6), SymInt(3)).guard_int(), 2);
  EXPECT_EQ(sym_min(SymInt(3), SymInt(-2)).guard_int(), -2);
  EXPECT_EQ(sym_max(SymInt(3), SymInt(-2)).guard_int(), 3);
  EXPECT_EQ((SymInt(3) + 4) * 2 - 1, 13);
  EXPECT_FALSE(SymInt(5).is_symbolic());
  EXPECT_EQ(SymInt(5).node(), nullptr);
  EXPECT_EQ(SymInt(-12).str(), "-12");
  EXPECT_THROW(floordiv(SymInt(1), SymInt(0)), Error);
}

TEST(SymInt, IsOneWordAndKeepsEveryRepresentableValue) {
  static_assert(sizeof(SymInt) == 8);
  const int64_t reserved_lo = -(int64_t{1} << 62), reserved_hi = reserved_lo + (int64_t{1} << 61);
  for (int64_t v : {int64_t{0}, int64_t{-1}, std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max(), reserved_lo - 1, reserved_hi}) {
    SymInt s(v);
    EXPECT_FALSE(s.is_symbolic()) << v;
    EXPECT_EQ(s.guard_int(), v);
    SymInt copy = s;
    EXPECT_EQ(copy.guard_int(), v);
  }
  for (int64_t v : {reserved_lo, reserved_lo + 12345, reserved_hi - 1}) {
    try {
      SymInt s(v);
      ADD_FAILURE() << "no error for " << v;
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find("[SymInt] " + std::to_string(v)), std::string::npos)
          << e.what();
    }
  }
  EXPECT_THROW((void)SymInt(SymNodePtr{}), ValueError);
}

TEST(SymInt, SymbolicArithmeticBuildsExpressions) {
  Log log;
  const SymInt s0 = ToyNode::symbol("s0", 6, &log), s1 = ToyNode::symbol("s1", 4, &log);
  EXPECT_TRUE(s0.is_symbolic());
  EXPECT_EQ(((s0 + 2) * s1).str(), "((s0 + 2) * s1)");
  EXPECT_EQ((2 * s0).str(), "(2 * s0)");  // the concrete side is wrapped in s0's system
  EXPECT_EQ((s0 - s1).str(), "(s0 - s1)");
  EXPECT_EQ(floordiv(s0, 4).str(), "(s0 // 4)");
  EXPECT_EQ(mod(s0, s1).str(), "(s0 % s1)");
  EXPECT_EQ(sym_max(s1, 1).str(), "max(s1, 1)");
  EXPECT_EQ(sym_min(3, s0).str(), "min(3, s0)");
  EXPECT_TRUE(log.guards.empty());  // building expressions guards nothing

  // Turning one into a concrete value, or comparing, is a guard; the node records it.
  EXPECT_EQ(((s0 + 2) * s1).guard_int("view"), 32);
  EXPECT_TRUE(s0 > s1);
  EXPECT_FALSE(s0 == 1);
  ASSERT_EQ(log.guards.size(), 3u);
  EXPECT_EQ(log.guards[0], "view: ((s0 + 2) * s1) == 32");
  EXPECT_EQ(log.guards[1], "SymInt >: s0 > s1 is true");
  EXPECT_EQ(log.guards[2], "SymInt ==: s0 == 1 is false");
}

TEST(SymInt, CopiesShareTheNodeAndReleaseIt) {
  Log log;
  std::weak_ptr<SymNode> watch;
  {
    SymInt s = ToyNode::symbol("s0", 3, &log);
    watch = s.node();
    std::vector<SymInt> many(5, s);  // copies
    SymInt moved = std::move(many[0]);
    many[1] = many[2];    // copy-assign over a symbolic value
    many[3] = SymInt(7);  // a concrete value replaces a symbolic one
    SymShape inline_copy(many.begin(), many.end());
    EXPECT_EQ(moved.str(), "s0");
    EXPECT_EQ(inline_copy[1].str(), "s0");
    EXPECT_EQ(inline_copy[3].guard_int(), 7);
    EXPECT_EQ(inline_copy[0].guard_int(), 0);  // moved-from: zero
    EXPECT_FALSE(watch.expired());
  }
  EXPECT_TRUE(watch.expired());  // every copy released its reference (and ASan sees no leak)
}

TensorMeta sym_meta(SymShape sizes) {
  return TensorMeta::contiguous(std::move(sizes), kFloat32, kCPU);
}

TEST(SymInt, InferenceRunsOnSymbolicSizes) {
  Log log;
  const SymInt s0 = ToyNode::symbol("s0", 6, &log), s1 = ToyNode::symbol("s1", 4, &log);

  // Broadcasting [s0, 1] with [1, s1]: size-1 checks are guards, the result is symbolic.
  const TensorMeta a = sym_meta({s0, 1}), b = sym_meta({1, s1});
  const MetaList add = Binary(BinaryOp::Add).infer(std::vector<TensorMeta>{a, b});
  ASSERT_EQ(add.size(), 1u);
  ASSERT_EQ(add[0].sizes.size(), 2u);
  EXPECT_EQ(add[0].sizes[0].str(), "s0");
  EXPECT_EQ(add[0].sizes[1].str(), "s1");
  EXPECT_EQ(add[0].strides[0].str(), "(1 * max(s1, 1))");
  EXPECT_EQ(add[0].strides[1].guard_int(), 1);
  EXPECT_EQ(add[0].dtype, kFloat32);
  EXPECT_EQ(Binary(BinaryOp::Lt).infer(std::vector<TensorMeta>{a, b})[0].dtype, kBool);
  // A literal 1 broadcasts with anything: no guard on s0 == 1 or s1 == 1 is needed (nor could
  // an unbacked size answer one, Note [Unbacked symbols]).
  EXPECT_TRUE(log.guards.empty()) << log.guards[0];

  // Reducing dim 1 of [s0, s1] keeps s0; keepdim keeps a 1.
  const TensorMeta x = sym_meta({s0, s1});
  const MetaList sum = Reduce(ReduceOp::Sum, {1}, false, kFloat64).infer(std::vector{x});
  ASSERT_EQ(sum[0].sizes.size(), 1u);
  EXPECT_EQ(sum[0].sizes[0].str(), "s0");
  EXPECT_EQ(sum[0].dtype, kFloat64);
  const MetaList maxdim = Reduce(ReduceOp::MaxDim, {0}, true, kFloat32).infer(std::vector{x});
  ASSERT_EQ(maxdim.size(), 2u);  // values and int64 indices
  EXPECT_EQ(maxdim[1].dtype, kInt64);
  EXPECT_EQ(maxdim[1].sizes[0].guard_int(), 1);
  EXPECT_EQ(maxdim[1].sizes[1].str(), "s1");

  // [1, s0, 5] @ [1, 5, s1] -> [1, s0, s1]; repeat {2, 3} of [s0] -> [2, (s0 * 3)].
  const MetaList mm = Matmul("bmm").infer(std::vector{sym_meta({1, s0, 5}), sym_meta({1, 5, s1})});
  EXPECT_EQ(mm[0].sizes[1].str(), "s0");
  EXPECT_EQ(mm[0].sizes[2].str(), "s1");
  const MetaList rep = Repeat({2, 3}).infer(std::vector{sym_meta({s0})});
  EXPECT_EQ(rep[0].sizes[0].guard_int(), 2);
  EXPECT_EQ(rep[0].sizes[1].str(), "(s0 * 3)");
}

}  // namespace
}  // namespace ember::test
