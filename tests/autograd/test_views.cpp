// Note [Views]: view ops are logical primitives that carry their own vjp and replay from their
// parameters, so a view's gradient does not depend on its input's memory layout.
#include <gtest/gtest.h>

#include "dispatch/dispatch.h"
#include "ember/ember.h"
#include "primitives/view.h"

namespace ember::test {
namespace {

Tensor arange_f64(std::vector<int64_t> sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return arange(n, TensorOptions().dtype(kFloat64)).reshape(SymIntList(sizes));
}

void expect_values(const Tensor& got, const std::vector<double>& want) {
  ASSERT_EQ(got.numel(), static_cast<int64_t>(want.size()));
  const Tensor c = got.contiguous().to(kFloat64);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(c.data_ptr<double>()[i], want[i]) << i;
}

// Each view's primitive, taken from a call, replays on another tensor of the same shape and
// after a JSON round trip gives that tensor's view.
TEST(Views, ReplayFromParameters) {
  struct Case {
    const char* name;
    std::function<Tensor(const Tensor&)> op;
  };
  const std::vector<Case> cases = {
      {"reshape",
       [](const Tensor& t) {
         return t.view({4, 6});
       }},
      {"flatten", [](const Tensor& t) { return t.flatten(1); }},
      {"squeeze", [](const Tensor& t) { return t.unsqueeze(1).squeeze(1); }},
      {"unsqueeze", [](const Tensor& t) { return t.unsqueeze(-1); }},
      {"permute",
       [](const Tensor& t) {
         return t.permute({2, 0, 1});
       }},
      {"transpose", [](const Tensor& t) { return t.transpose(0, 2); }},
      {"expand",
       [](const Tensor& t) {
         return t.select(2, 1).unsqueeze(0).expand({3, 2, 3});
       }},
      {"slice", [](const Tensor& t) { return t.slice(2, 1, 4, 2); }},
      {"narrow", [](const Tensor& t) { return t.narrow(1, 1, 2); }},
      {"select", [](const Tensor& t) { return t.select(1, -1); }},
      {"diagonal", [](const Tensor& t) { return t.diagonal(1, 0, 2); }},
      {"alias", [](const Tensor& t) { return t.detach(); }},
  };
  const Tensor x = arange_f64({2, 3, 4});
  const Tensor y = arange_f64({2, 3, 4}) * 10.0 + 1.0;
  struct Recorder : DispatchMode {
    std::shared_ptr<const Primitive> last;
    void handle(OpCall& call, const DispatchNext& next) override {
      if (call.prim.is_view()) last = call.prim.clone();
      next(call);
    }
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Recorder rec;
    Tensor vx;
    {
      DispatchModeGuard guard(rec);
      vx = c.op(x);
    }
    ASSERT_TRUE(rec.last);
    ASSERT_TRUE(rec.last->infers());
    auto again = primitive_from_json(rec.last->to_json());
    ASSERT_TRUE(again->equals(*rec.last));
    // The replayed view on y: same layout as the op's view of y, and shares y's storage.
    const Tensor input = std::string(c.name) == "expand"    ? y.select(2, 1).unsqueeze(0)
                         : std::string(c.name) == "squeeze" ? y.unsqueeze(1)
                                                            : y;
    const Tensor vy = dispatch(*again, {input})[0];
    const Tensor ref = c.op(y);
    EXPECT_EQ(vy.sizes(), ref.sizes());
    EXPECT_EQ(vy.strides(), ref.strides());
    EXPECT_EQ(vy.storage_offset(), ref.storage_offset());
    EXPECT_TRUE(vy.is_alias_of(y));
    EXPECT_TRUE(vy.equal(ref));
    EXPECT_EQ(vx.sizes(), vy.sizes());
  }
}

// A view of an expanded tensor (its memory overlaps, so no storage geometry maps the view's
// elements back): every view op still differentiates, by its own vjp. Expected gradients are
// counts of how often each element of x is read.
TEST(Views, GradientsThroughOverlappingInput) {
  auto grad_of = [](const std::function<Tensor(const Tensor&)>& f) {
    Tensor x = tensor(std::vector<double>{1, 2, 3}).reshape({3, 1}).requires_grad_();
    Tensor w = arange_f64({3, 4}) + 1.0;  // weights make every position distinct
    Tensor e = x.expand({3, 4});
    f(e).mul(f(w)).sum().backward();
    return x.grad();
  };
  // select(1, 2): x[i] read once, with weight w[i][2] = 4i + 3.
  expect_values(grad_of([](const Tensor& t) { return t.select(1, 2); }), {3, 7, 11});
  // slice(1, 0, 4, 2): columns 0 and 2 -> (4i + 1) + (4i + 3).
  expect_values(grad_of([](const Tensor& t) { return t.slice(1, 0, 4, 2); }), {4, 12, 20});
  // diagonal: x[i] at (i, i) -> 4i + i + 1.
  expect_values(grad_of([](const Tensor& t) { return t.diagonal(); }), {1, 6, 11});
  // transpose, unsqueeze, squeeze, reshape through view, alias: every column -> row sums of w.
  const std::vector<double> rows = {10, 26, 42};
  expect_values(grad_of([](const Tensor& t) { return t.t(); }), rows);
  expect_values(grad_of([](const Tensor& t) { return t.unsqueeze(0).squeeze(0); }), rows);
  expect_values(grad_of([](const Tensor& t) { return t.permute({1, 0}).unsqueeze(2); }), rows);
  expect_values(grad_of([](const Tensor& t) {
                  return t.expand({2, 3, 4});
                }),
                {20, 52, 84});  // read twice
  // Second order through a selection view: d/dx of sum((x_e[:, 1])^2) = 2 x; its derivative 2.
  Tensor x = tensor(std::vector<double>{1, 2, 3}).reshape({3, 1}).requires_grad_();
  Tensor g = autograd::grad({x.expand({3, 4}).select(1, 1).pow(2).sum()}, {x}, {}, true, true)[0];
  expect_values(g, {2, 4, 6});
  Tensor gg = autograd::grad({g.sum()}, {x})[0];
  expect_values(gg, {2, 2, 2});
}

// Hand-built or deserialised view primitives check their parameters against the input.
TEST(Views, PrimitivesRejectParametersThatDoNotFit) {
  const Tensor x = arange_f64({2, 3});
  EXPECT_THROW(dispatch(Select({1, 3}), {x}), IndexError);
  EXPECT_THROW(dispatch(Select({2, 0}), {x}), IndexError);
  EXPECT_THROW(dispatch(Permute({{0, 0}}), {x}), RuntimeError);
  EXPECT_THROW(dispatch(Permute({{0}}), {x}), RuntimeError);
  EXPECT_THROW(dispatch(StridedSlice({1, 2, 5, 1}), {x}), RuntimeError);
  EXPECT_THROW(dispatch(StridedSlice({1, 0, 2, 0}), {x}), RuntimeError);
  EXPECT_THROW(dispatch(StridedSlice({1, 0, 0, 1, {0}}), {x}), RuntimeError);  // {start, end}
  EXPECT_THROW(dispatch(Expand({{3, 3}}), {x}), RuntimeError);
  EXPECT_THROW(dispatch(Reshape({{4, 2}}), {x}), RuntimeError);
  EXPECT_THROW(dispatch(Reshape({{6}}), {x.t()}), RuntimeError);  // not viewable
  EXPECT_THROW(dispatch(Diagonal({0, 1, 1}), {x}), RuntimeError);
  EXPECT_THROW(dispatch(Unsqueeze({3}), {x}), IndexError);
  try {
    dispatch(Select({1, 3}), {x});
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "[select] index 3 is out of bounds for dimension 1 with size 3");
  }
}

// Views infer on metadata alone (meta tensors) what they make on the CPU.
TEST(Views, InferenceMatchesTheView) {
  const Tensor x = arange_f64({4, 6}).t();
  const Tensor m = empty_strided(x.sizes(), x.strides(), TensorOptions().device(kMeta));
  for (auto* make : {+[](const Tensor& t) { return t.diagonal(-1); },
                     +[](const Tensor& t) { return t.slice(0, 1, 6, 2).select(1, 2); },
                     +[](const Tensor& t) {
                       return t.unsqueeze(1).expand({6, 5, 4});
                     }}) {
    const Tensor a = make(x), b = make(m);
    EXPECT_EQ(a.sizes(), b.sizes());
    EXPECT_EQ(a.strides(), b.strides());
    EXPECT_TRUE(b.device().is_meta());
  }
}

}  // namespace
}  // namespace ember::test
