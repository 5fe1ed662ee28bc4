// Every primitive kind is a value (Note [Primitive params]): equality, hash, description and a
// lossless JSON form, all sensitive to every parameter; malformed JSON is rejected.
#include <gtest/gtest.h>

#include "dispatch/dispatch.h"
#include "dispatch/primitive.h"
#include "ember/ember.h"
#include "opdb.h"
#include "primitives/binary.h"
#include "primitives/reduction.h"
#include "primitives/unary.h"

namespace ember::test {
namespace {

// Changes the `target`-th field (an optional's presence counts as a field of its own).
class Perturb final : public ParamVisitor {
 public:
  explicit Perturb(int target) : target_(target) {}
  bool hit() { return index_++ == target_; }
  int count() const { return index_; }
  void i64(const char*, int64_t& v) override { v += hit() ? 3 : 0; }
  void u64(const char*, uint64_t& v) override { v += hit() ? 3 : 0; }
  void f64(const char*, double& v) override { v += hit() ? 0.25 : 0; }
  void boolean(const char*, bool& v) override { v = hit() ? !v : v; }
  void scalar(const char*, Scalar& v) override {
    if (hit()) v = v.isFloatingPoint() ? Scalar(int64_t{7}) : Scalar(2.5);
  }
  void enumeration(const char*, int& v, const EnumInfo& info) override {
    if (hit()) v = (v + 1) % info.count;
  }
  void text(const char*, std::string& v) override { v += hit() ? "x" : ""; }
  void i64_list(const char*, std::vector<int64_t>& v) override {
    if (hit()) v.push_back(5);
  }
  bool optional(const char*, bool present) override { return hit() ? !present : present; }

 private:
  int target_, index_ = 0;
};

int field_count(const Primitive& p) {
  Perturb counter(-1);
  p.clone()->visit_params(counter);
  return counter.count();
}

std::shared_ptr<Primitive> perturbed(PrimitiveKind kind, int field) {
  auto p = make_primitive(kind);
  Perturb v(field);
  p->visit_params(v);
  return p;
}

TEST(PrimitiveIdentity, EveryKindRoundTripsThroughJson) {
  EXPECT_GE(all_primitive_kinds().size(), 53u);
  for (PrimitiveKind kind : all_primitive_kinds()) {
    SCOPED_TRACE(primitive_kind_name(kind));
    auto p = make_primitive(kind);
    ASSERT_EQ(p->kind(), kind);
    EXPECT_NE(std::string(p->name()), "");
    const std::string json = p->to_json();
    auto q = primitive_from_json(json);
    EXPECT_EQ(q->kind(), kind);
    EXPECT_TRUE(q->equals(*p));
    EXPECT_EQ(q->hash(), p->hash());
    EXPECT_EQ(q->to_json(), json);
    EXPECT_EQ(q->describe(), p->describe());
    auto c = p->clone();
    EXPECT_TRUE(c->equals(*p));
    EXPECT_EQ(c->hash(), p->hash());
  }
}

TEST(PrimitiveIdentity, EveryParameterCounts) {
  int fields_total = 0;
  for (PrimitiveKind kind : all_primitive_kinds()) {
    SCOPED_TRACE(primitive_kind_name(kind));
    auto base = make_primitive(kind);
    const int n = field_count(*base);
    fields_total += n;
    for (int f = 0; f < n; ++f) {
      SCOPED_TRACE("field " + std::to_string(f));
      auto p = perturbed(kind, f);
      EXPECT_FALSE(p->equals(*base));
      EXPECT_FALSE(base->equals(*p));
      EXPECT_NE(p->to_json(), base->to_json());
      // Unary and UnaryBackward name only the arguments their op reads.
      if (kind != PrimitiveKind::Unary && kind != PrimitiveKind::UnaryBackward) {
        EXPECT_NE(p->describe(), base->describe());
      }
      auto back = primitive_from_json(p->to_json());
      EXPECT_TRUE(back->equals(*p));
      EXPECT_EQ(back->hash(), p->hash());
    }
  }
  EXPECT_GT(fields_total, 100);
}

TEST(PrimitiveIdentity, KindsAreDistinct) {
  auto a = make_primitive(PrimitiveKind::Where);
  auto b = make_primitive(PrimitiveKind::Copy);
  EXPECT_FALSE(a->equals(*b));  // both without parameters
  EXPECT_TRUE(Binary(BinaryOp::Mul).equals(Binary(BinaryOp::Mul)));
  EXPECT_FALSE(Binary(BinaryOp::Mul).equals(Binary(BinaryOp::Add)));
  EXPECT_FALSE(Binary(BinaryOp::Add, 2).equals(Binary(BinaryOp::Add, 2.0)));  // int vs float
}

TEST(PrimitiveIdentity, DescriptionsAreReadable) {
  EXPECT_EQ(Reduce(ReduceOp::Sum, {0, 2}, true, kFloat64).describe(),
            "op=Sum, dims=[0, 2], keepdim=True, param=0, dtype=Double");
  EXPECT_EQ(Binary(BinaryOp::Add, 0.5).describe(), "op=Add, alpha=0.5");
  UnaryArgs args;
  args.a = 0.1;
  EXPECT_EQ(Unary(UnaryOp::LeakyRelu, args).describe(), "negative_slope=0.1");
}

TEST(PrimitiveIdentity, DisplayNameTravelsButDoesNotCount) {
  Binary named(BinaryOp::DivFloor, 1, "floor_divide");
  EXPECT_STREQ(named.name(), "floor_divide");
  EXPECT_TRUE(named.equals(Binary(BinaryOp::DivFloor)));
  auto back = primitive_from_json(named.to_json());
  EXPECT_STREQ(back->name(), "floor_divide");
  EXPECT_STREQ(primitive_from_json(Binary(BinaryOp::DivFloor).to_json())->name(), "div");
}

// Note [Mutation and aliasing]: the in-place form is part of the identity, travels in JSON,
// and is what dispatch reads (there is no separate flag on the call).
TEST(PrimitiveIdentity, InPlaceFormCountsAndTravels) {
  const Binary add(BinaryOp::Add, 1);
  const Binary add_ = in_place(Binary(BinaryOp::Add, 1));
  EXPECT_FALSE(add.inplace());
  EXPECT_TRUE(add_.inplace());
  EXPECT_FALSE(add.equals(add_));
  EXPECT_NE(add.hash(), add_.hash());
  EXPECT_NE(add_.to_json().find("\"inplace\":true"), std::string::npos) << add_.to_json();
  EXPECT_EQ(add.to_json().find("inplace"), std::string::npos);
  auto back = primitive_from_json(add_.to_json());
  EXPECT_TRUE(back->inplace());
  EXPECT_TRUE(back->equals(add_));
  EXPECT_TRUE(back->clone()->inplace());  // copies keep the form
  std::string bad = add_.to_json();
  bad.replace(bad.find("true"), 4, "1");
  EXPECT_THROW(primitive_from_json(bad), ValueError);

  struct Seen : DispatchMode {
    std::vector<std::pair<std::string, bool>> calls;  // name, call.inplace
    std::vector<std::optional<size_t>> alias;         // aliased_input(0)
    void handle(OpCall& call, const DispatchNext& next) override {
      EXPECT_EQ(call.inplace, call.prim.inplace()) << call.prim.name();
      calls.emplace_back(call.prim.name(), call.inplace);
      alias.push_back(call.prim.aliased_input(0));
      next(call);
    }
  } seen;
  Tensor x = zeros({2, 3}), y = ones({2, 3});
  {
    DispatchModeGuard guard(seen);
    x.add_(y);
    (void)(x + y);
    (void)x.transpose(0, 1);
  }
  ASSERT_EQ(seen.calls.size(), 3u);
  EXPECT_EQ(seen.calls[0], std::make_pair(std::string("add_"), true));
  EXPECT_EQ(seen.calls[1], std::make_pair(std::string("add"), false));
  EXPECT_FALSE(seen.alias[0].has_value());
  EXPECT_EQ(seen.alias[2], std::optional<size_t>(0));  // a view of its input
}

// The update primitives have out-of-place forms: scatter, index_add/copy/fill and masked_scatter
// run one primitive that starts from a copy of self, with no clone (copy_) before it.
TEST(PrimitiveIdentity, OutOfPlaceUpdatesRunOnePrimitive) {
  struct Names : DispatchMode {
    std::vector<std::string> names;
    std::vector<bool> inplace;
    void handle(OpCall& call, const DispatchNext& next) override {
      if (!call.prim.is_view()) {  // views (expand, reshape) copy nothing
        names.push_back(call.prim.name());
        inplace.push_back(call.prim.inplace());
      }
      next(call);
    }
  };
  const Tensor x = arange(6, TensorOptions().dtype(kFloat64)).reshape({2, 3});
  const Tensor before = x.clone();
  const Tensor index = tensor({1, 0}, TensorOptions().dtype(kInt64));
  const Tensor src = full({2, 3}, 10.0, TensorOptions().dtype(kFloat64));
  const Tensor mask = tensor({true, false, true}, TensorOptions().dtype(kBool));
  auto one_op = [&](const char* name, auto&& run) {
    Names seen;
    Tensor r;
    {
      DispatchModeGuard guard(seen);
      r = run();
    }
    EXPECT_EQ(seen.names, std::vector<std::string>{name}) << name;
    EXPECT_EQ(seen.inplace, std::vector<bool>{false}) << name;
    return r;
  };
  // scatter(x, 0, [[1], [0]], 10): row 1 col 0 and row 0 col 0 become 10.
  Tensor s = one_op("scatter", [&] { return x.scatter(0, index.reshape({2, 1}), src); });
  EXPECT_TRUE(
      s.equal(tensor({{10.0, 1.0, 2.0}, {10.0, 4.0, 5.0}}, TensorOptions().dtype(kFloat64))));
  // index_add(x, 0, [1, 0], 10): every element + 10.
  Tensor a = one_op("index_add", [&] { return x.index_add(0, index, src); });
  EXPECT_TRUE(a.equal(x + 10));
  // masked_scatter of a broadcast self: the mask's true columns take 10 in each row.
  Tensor m = one_op("masked_scatter", [&] { return x.masked_scatter(mask, src); });
  EXPECT_TRUE(
      m.equal(tensor({{10.0, 1.0, 10.0}, {10.0, 4.0, 10.0}}, TensorOptions().dtype(kFloat64))));
  EXPECT_TRUE(m.is_contiguous());
  EXPECT_TRUE(x.equal(before));  // self is read, never written
}

TEST(PrimitiveIdentity, NonFiniteParametersRoundTrip) {
  Binary inf(BinaryOp::Add, std::numeric_limits<double>::infinity());
  auto back = primitive_from_json(inf.to_json());
  EXPECT_TRUE(back->equals(inf));
  UnaryArgs nan_args;
  nan_args.a = std::nan("");
  Unary nan(UnaryOp::NanToNum, nan_args);
  EXPECT_TRUE(primitive_from_json(nan.to_json())->equals(nan));
}

TEST(PrimitiveIdentity, MalformedJsonIsRejected) {
  const std::string good = Reduce(ReduceOp::Sum, {1}, false, kInt64).to_json();
  ASSERT_TRUE(primitive_from_json(good)->equals(Reduce(ReduceOp::Sum, {1}, false, kInt64)));
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const size_t i = s.find(from);
    EXPECT_NE(i, std::string::npos) << from;
    return s.replace(i, from.size(), to);
  };
  std::vector<ErrorCase> cases = {
      {"not json", [] { primitive_from_json("{\"kind\": "); }, "not valid JSON"},
      {"not an object", [] { primitive_from_json("[1, 2]"); }, "expected {"},
      {"unknown kind", [&] { primitive_from_json(replace("\"Reduce\"", "\"Launch\"")); },
       "unknown primitive kind 'Launch'"},
      {"missing parameter", [&] { primitive_from_json(replace("\"keepdim\":false,", "")); },
       "missing parameter 'keepdim'"},
      {"wrong type", [&] { primitive_from_json(replace("\"keepdim\":false", "\"keepdim\":1")); },
       "'keepdim' expected a boolean"},
      {"extra parameter",
       [&] { primitive_from_json(replace("\"keepdim\":false", "\"keepdim\":false,\"x\":1")); },
       "unexpected parameters"},
      {"unknown enum value", [&] { primitive_from_json(replace("\"Sum\"", "\"Rm\"")); },
       "has no value \"Rm\""},
      {"int64 overflow", [&] { primitive_from_json(replace("[1]", "[18446744073709551615]")); },
       "expected a list of int64"},
      {"extra key", [&] { primitive_from_json(replace("{\"kind\"", "{\"x\":0,\"kind\"")); },
       "unexpected key 'x'"},
  };
  expect_errors<ValueError>(cases);
}

}  // namespace
}  // namespace ember::test
