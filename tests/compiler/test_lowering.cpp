// Note [Lowering] end to end: graphs traced with make_fx, lowered to generated kernels (one
// compiler run per test: the graphs of a test are lowered together), run, and compared with the
// eager program; kernel counts show that fusion happens.
#include <ember/compiler.h>
#include <ember/profiler.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>

#include "compiler/codecache.h"
#include "compiler/lowering.h"
#include "dispatch/dispatch.h"
#include "fx_test_util.h"
#include "opdb.h"
#include "primitives/unary.h"

namespace ember::test {
namespace {

namespace F = nn::functional;
using compiler::CompiledGraph;
using Fn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

struct Case {
  std::string name;
  Fn fn;
  std::vector<Tensor> inputs;
  TraceOptions options = {};
};

struct Lowered {
  std::vector<fx::GraphModule> gms;
  std::vector<std::shared_ptr<const CompiledGraph>> compiled;
};

// Traces every case and lowers all the graphs in one unit.
Lowered lower_all(const std::vector<Case>& cases) {
  Lowered l;
  for (const Case& c : cases) l.gms.push_back(make_fx(c.fn, exact_copies(c.inputs), c.options));
  std::vector<const fx::GraphModule*> ptrs;
  for (const fx::GraphModule& gm : l.gms) ptrs.push_back(&gm);
  l.compiled = compiler::lower(ptrs);
  return l;
}

// Values, dtype and sizes of `got` against eager's `want`, within the dtype's tolerance.
::testing::AssertionResult close_to(const Tensor& got, const Tensor& want, double scale = 4) {
  if (got.dtype() != want.dtype() || got.sizes() != want.sizes()) {
    return ::testing::AssertionFailure() << "dtype/sizes differ: " << dtype_name(got.dtype())
                                         << " vs " << dtype_name(want.dtype());
  }
  auto [rtol, atol] = tolerances(want.dtype());
  return close(got, want.sizes(), values(want), rtol * scale, atol * scale);
}

// Runs case c compiled and eagerly on copies of its inputs; compares outputs and the inputs
// afterwards (in-place writes).
void expect_matches(const Case& c, const CompiledGraph& g, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> ein = exact_copies(inputs), cin = exact_copies(inputs);
  const std::vector<Tensor> want = c.fn(ein), got = g(cin);
  ASSERT_EQ(got.size(), want.size()) << c.name;
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(close_to(got[i], want[i])) << c.name;
  for (size_t i = 0; i < cin.size(); ++i) EXPECT_TRUE(close_to(cin[i], ein[i])) << c.name;
}

Tensor rand(std::vector<int64_t> shape, ScalarType dt = kFloat32, uint64_t seed = 1) {
  return make_tensor(shape, dt, -2, 2, seed);
}

// The fused activation backwards (sigmoid, tanh, silu, gelu and its tanh form: UnaryBackward)
// lower as pointwise ops with eager's functors: with the chain around them, one kernel each,
// equal to eager's kernel within the dtype's tolerance (bfloat16 computes in float and rounds
// once, as eager does).
TEST(Lowering, ActivationBackwardsFuseWithEagersFunctors) {
  struct Op {
    UnaryOp op;
    bool tanh_approx;
    bool reads_output;
  };
  const std::vector<Op> ops = {{UnaryOp::Sigmoid, false, true},
                               {UnaryOp::Tanh, false, true},
                               {UnaryOp::Silu, false, false},
                               {UnaryOp::Gelu, false, false},
                               {UnaryOp::Gelu, true, false}};
  for (ScalarType dt : {kFloat32, kBFloat16}) {
    std::vector<Case> cases;
    for (const Op& o : ops) {
      UnaryArgs args;
      args.tanh_approx = o.tanh_approx;
      cases.push_back(
          {std::string(UnaryBackward(o.op, args).name()) + (o.tanh_approx ? "_tanh" : ""),
           [o, args](auto& xs) {
             Tensor v = o.reads_output ? xs[1].sigmoid() : xs[1];
             return std::vector<Tensor>{dispatch(UnaryBackward(o.op, args), {xs[0] * 2, v})[0] + 1};
           },
           {rand({4, 1000}, dt, 3), rand({4, 1000}, dt, 4)}});
    }
    const Lowered l = lower_all(cases);
    for (size_t i = 0; i < cases.size(); ++i) {
      EXPECT_EQ(l.compiled[i]->kernel_names().size(), 1u) << cases[i].name << ":\n"
                                                          << l.gms[i].graph().to_string();
      expect_matches(cases[i], *l.compiled[i], cases[i].inputs);
    }
  }
}

TEST(Lowering, FusionCounts) {
  const Tensor x = rand({4, 1000}), w = rand({1000, 16}), b = rand({16});
  const Tensor target = from_values({4}, {3, 0, 999, 7}).to(kInt64);
  const std::vector<Case> cases = {
      {"chain",
       [](auto& xs) { return std::vector<Tensor>{(((xs[0] * 2 + 1).relu() * 3).exp())}; },
       {x}},
      {"softmax", [](auto& xs) { return std::vector<Tensor>{F::softmax(xs[0], 1)}; }, {x}},
      {"layer_norm",
       [](auto& xs) {
         return std::vector<Tensor>{F::layer_norm(xs[0], F::LayerNormFuncOptions({1000}))};
       },
       {x}},
      {"log_softmax", [](auto& xs) { return std::vector<Tensor>{F::log_softmax(xs[0], -1)}; }, {x}},
      {"cross_entropy",
       [](auto& xs) { return std::vector<Tensor>{F::cross_entropy(xs[0], xs[1])}; },
       {x, target}},
      {"mlp",
       [](auto& xs) {
         Tensor h = (xs[0].matmul(xs[1]) + xs[2]).relu();
         return std::vector<Tensor>{F::softmax(h.matmul(xs[1].narrow(0, 0, 16)) * 0.5, -1)};
       },
       {x, w, b}},
  };
  const Lowered l = lower_all(cases);
  const std::vector<size_t> want_kernels = {1, 1, 1, 1, 2, 2};
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto names = l.compiled[i]->kernel_names();
    EXPECT_EQ(names.size(), want_kernels[i]) << cases[i].name << ":\n"
                                             << l.gms[i].graph().to_string();
    expect_matches(cases[i], *l.compiled[i], cases[i].inputs);
  }
  EXPECT_EQ(l.compiled[0]->kernel_names()[0], "fused_mul_add_relu_mul_exp");
  EXPECT_EQ(l.compiled[1]->kernel_names()[0], "fused_softmax");
  // The MLP's matrix products stay calls of mm; their epilogues are kernels.
  EXPECT_EQ(l.compiled[5]->kernel_names()[0], "fused_add_relu");
  EXPECT_EQ(l.compiled[5]->kernel_names()[1], "fused_mul_softmax");
  // Readable source: each kernel says which graph nodes it computes.
  EXPECT_NE(l.compiled[2]->source().find("// fused_var_mean_add_rsqrt_sub_mul: graph nodes"),
            std::string::npos);
  EXPECT_NE(l.compiled[0]->source_path(), "");
}

TEST(Lowering, MatchesEager) {
  const Tensor a = rand({33, 17}), row = rand({17}, kFloat32, 2), col = rand({33, 1}, kFloat32, 3);
  const Tensor big = rand({4, 1000}), d = rand({5, 9}, kFloat64, 4);
  const Tensor nc = make_noncontiguous(rand({6, 10}, kFloat32, 5));
  const Tensor scalar = rand({}, kFloat32, 6), empty = rand({0, 5}), m = rand({8, 8}, kFloat32, 7);
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  // Rows whose maximum is -inf, +inf, NaN, and finite with a -inf entry (eager's special cases).
  const Tensor special =
      from_values({4, 3}, {-inf, -inf, -inf, 1, inf, 2, 0, nan, 1, -inf, 0.5, 2}).to(kFloat32);
  auto one = [](std::function<Tensor(const std::vector<Tensor>&)> f) {
    return [f](const std::vector<Tensor>& xs) { return std::vector<Tensor>{f(xs)}; };
  };
  const std::vector<Case> cases = {
      {"broadcast",
       one([](auto& xs) { return ((xs[0] + xs[1]) * xs[2]).sigmoid() - 0.25; }),
       {a, row, col}},
      {"transposed",
       one([](auto& xs) { return (xs[0].t() * 2).tanh() + xs[1].unsqueeze(1); }),
       {a, row}},
      {"sliced",
       one([](auto& xs) { return xs[0].narrow(1, 2, 5).exp() * xs[0].narrow(1, 0, 5); }),
       {a}},
      {"noncontiguous", one([](auto& xs) { return (xs[0] * xs[0]).sqrt().sum(-1); }), {nc}},
      {"0-d", one([](auto& xs) { return (xs[0] * 3).exp() + 1; }), {scalar}},
      {"empty", one([](auto& xs) { return (xs[0] * 2 + 1).sum(-1); }), {empty}},
      {"empty_outer", one([](auto& xs) { return xs[0].sum(0); }), {empty}},
      {"float64", one([](auto& xs) { return (xs[0].log1p().abs() + 1).rsqrt().mean(0); }), {d}},
      {"inner_keepdim", one([](auto& xs) { return xs[0] - xs[0].amax({1}, true); }), {a}},
      {"outer", one([](auto& xs) { return xs[0].sum(0) + xs[0].amin({0}); }), {a}},
      {"var_std", one([](auto& xs) { return xs[0].var({0}) + xs[0].std({1}, 0, true); }), {a}},
      {"prod_all", one([](auto& xs) { return (xs[0] * 0.5 + 1).prod(); }), {d}},
      {"softmax_big", one([](auto& xs) { return F::softmax(xs[0] * 0.5, -1); }), {big}},
      {"softmax_dim0", one([](auto& xs) { return F::log_softmax(xs[0], 0); }), {a}},
      {"layer_norm_big",
       one([](auto& xs) { return F::layer_norm(xs[0], F::LayerNormFuncOptions({1000})); }),
       {big}},
      {"compare_where",
       one([](auto& xs) { return where(xs[0] > 0.5, xs[0], xs[0].clamp(-1, 0.25)); }),
       {a}},
      {"extern_mix",
       one([](auto& xs) { return (ember::gelu(xs[0].matmul(xs[0])) + 1).matmul(xs[0]).amax({1}); }),
       {m}},
      {"views_out",
       [](auto& xs) {
         return std::vector<Tensor>{xs[0].t(), xs[0] * 2, xs[0]};
       },
       {a}},
      {"inplace_input",
       [](auto& xs) {
         Tensor y = xs[0] * 2;
         xs[0].add_(1);
         return std::vector<Tensor>{y + xs[0]};
       },
       {a}},
      {"logsumexp", one([](auto& xs) { return (xs[0] * 3).logsumexp({1}, true) - xs[0]; }), {a}},
      {"logsumexp_inf", one([](auto& xs) { return xs[0].logsumexp({1}); }), {special}},
      {"compare_nan",
       one([](auto& xs) {
         const Tensor x = xs[0];
         return where(x <= 1, x, x * 2) + (x != x).to(kFloat32) +
                (x >= 0).logical_not().to(kFloat32) + x.masked_fill(x < 0.5, 0) +
                (x == 2).to(kFloat32);
       }),
       {special.repeat({4, 4})}},
      {"predicates_vectorised",
       one([](auto& xs) {
         const Tensor x = xs[0];
         return x.isfinite().logical_and(x.isinf().logical_not()).to(kFloat32) +
                x.isinf().to(kFloat32) * 2 + x.isnan().to(kFloat32) * 4;
       }),
       {special.repeat({8, 8})}},
      {"int_to_float",
       one([](auto& xs) { return xs[0].to(kFloat32) * 0.5; }),
       {rand({3, 4}, kInt64, 8)}},
  };
  const Lowered l = lower_all(cases);
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].name);
    EXPECT_GE(l.compiled[i]->kernel_names().size(), 1u) << l.gms[i].graph().to_string();
    expect_matches(cases[i], *l.compiled[i], cases[i].inputs);
  }
  // An output that is a view of an input is a view, as the interpreter returns it.
  std::vector<Tensor> in = exact_copies(cases[17].inputs);
  const std::vector<Tensor> out = (*l.compiled[17])(in);
  EXPECT_EQ(out[0].data_ptr(), in[0].data_ptr());
  EXPECT_EQ(out[2].data_ptr(), in[0].data_ptr());
  EXPECT_EQ(out[0].strides(), (std::vector<int64_t>{1, 17}));
}

// Note [Streaming stores]: a pointwise kernel writing 32 MiB or more streams its contiguous
// stores (decided at run time from the sizes); the values are eager's.
TEST(Lowering, BigOutputsStreamAndMatchEager) {
  const std::vector<Case> cases = {
      {"chain",
       [](auto& xs) { return std::vector<Tensor>{((xs[0] * 2 + 1).relu() * 3).sigmoid()}; },
       {rand({8500003})}},
      {"broadcast_rows",
       [](auto& xs) { return std::vector<Tensor>{(xs[0] + xs[1]).exp() * 0.5}; },
       {rand({4250, 2001}, kFloat32, 2), rand({2001}, kFloat32, 3)}},
  };
  const Lowered l = lower_all(cases);
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].name);
    EXPECT_EQ(l.compiled[i]->kernel_names().size(), 1u) << l.gms[i].graph().to_string();
    EXPECT_NE(l.compiled[i]->source().find("ember_put("), std::string::npos);
    expect_matches(cases[i], *l.compiled[i], cases[i].inputs);
  }
}

// Note [16-bit kernels]: bfloat16 and float16 graphs fuse as float32 ones do, in vectorised
// kernels that round each op's result as eager's kernels do: with exactly rounded ops (mul, add,
// relu, sub) compiled equals eager bit for bit. Integer chains fuse and wrap as eager's ops.
TEST(Lowering, SixteenBitAndIntegerChainsFuse) {
  const Tensor xb = rand({37, 129}, kBFloat16), xh = rand({37, 129}, kFloat16, 2);
  const Tensor yb = rand({129}, kBFloat16, 3);
  const Tensor ia = make_tensor({6, 50}, kInt64, -1000, 1000, 4);
  const Tensor ib = make_tensor({50}, kInt64, -1000, 1000, 5);
  auto one = [](std::function<Tensor(const std::vector<Tensor>&)> f) {
    return [f](const std::vector<Tensor>& xs) { return std::vector<Tensor>{f(xs)}; };
  };
  auto exact = one([](auto& xs) {
    const Tensor a = (xs[0] * 2.5 + 1.25).relu();
    return a - xs[0] * 0.3;
  });
  const std::vector<Case> cases = {
      {"bf16_exact", exact, {xb}},
      {"f16_exact", exact, {xh}},
      {"bf16_chain", one([](auto& xs) { return ((xs[0] * 2 + 1).relu() * 3).exp(); }), {xb}},
      {"f16_chain", one([](auto& xs) { return ((xs[0] * 2 + 1).relu() * 3).exp(); }), {xh}},
      {"bf16_softmax", one([](auto& xs) { return F::softmax(xs[0] * 0.5, -1); }), {xb}},
      {"bf16_row_sum", one([](auto& xs) { return (xs[0] * xs[1]).sum(-1); }), {xb, yb}},
      {"bf16_transposed",
       one([](auto& xs) { return xs[0].t() * 2 + xs[1].unsqueeze(1); }),
       {xb, yb}},
      {"bf16_mixed",
       one([](auto& xs) { return (xs[0].to(kFloat32) * 3).sigmoid().to(kBFloat16) + xs[0]; }),
       {xb}},
      {"bf16_float_scalars",  // Note [Reduced-float scalars]: 1.003 and 0.7 read as floats
       one([](auto& xs) { return (xs[0] * 1.003 + 1) / 0.7; }),
       {xb}},
      {"int_chain",
       one([](auto& xs) {
         const Tensor a = xs[0] * 3 + xs[1];
         return a.maximum(xs[0] * xs[0]) - xs[1];
       }),
       {ia, ib}},
  };
  const Lowered l = lower_all(cases);
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].name);
    EXPECT_EQ(l.compiled[i]->kernel_names().size(), 1u) << l.gms[i].graph().to_string();
    expect_matches(cases[i], *l.compiled[i], cases[i].inputs);
  }
  for (size_t i : {0, 1, 8, 9}) {  // bit for bit
    std::vector<Tensor> in = exact_copies(cases[i].inputs);
    EXPECT_TRUE((*l.compiled[i])(in)[0].equal(cases[i].fn(in)[0])) << cases[i].name;
  }
  EXPECT_EQ(l.compiled[0]->kernel_names()[0], "fused_mul_add_relu_mul_sub");
  EXPECT_EQ(l.compiled[9]->kernel_names()[0], "fused_mul_add_mul_maximum_sub");
  // Vectorised: 16-bit lanes are loaded into float vectors and stored rounded.
  EXPECT_NE(l.compiled[0]->source().find("ember_16<ember::BFloat16>::load("), std::string::npos);
  EXPECT_NE(l.compiled[1]->source().find("ember_16<ember::Half>::store("), std::string::npos);
}

TEST(Lowering, DynamicBatchOneCompile) {
  const Dim batch("batch", 2, 1024);
  TraceOptions dyn{.dynamic = {{{0, batch}}}};
  const std::vector<Case> cases = {
      {"chain",
       [](auto& xs) { return std::vector<Tensor>{((xs[0] * 2 + 1).relu() * 3).exp().sum(-1)}; },
       {rand({8, 64})},
       dyn},
      {"softmax",
       [](auto& xs) { return std::vector<Tensor>{F::softmax(xs[0], -1)}; },
       {rand({8, 64})},
       dyn},
      {"layer_norm_outer_sum",
       [](auto& xs) {
         return std::vector<Tensor>{F::layer_norm(xs[0], F::LayerNormFuncOptions({64})),
                                    xs[0].sum(0)};
       },
       {rand({8, 64})},
       dyn},
      // Views at dynamic offsets (the last two rows) are loads at symbolic offsets in the fused
      // kernel, not calls.
      {"views_at_dynamic_offsets",
       [](auto& xs) {
         const Tensor& x = xs[0];
         const SymInt n = x.sym_size(0);
         return std::vector<Tensor>{(x.narrow(0, n - 2, 2) * 2 + x.narrow(0, 0, 2)).exp(),
                                    x.narrow(0, 1, n - 1) - 1};
       },
       {rand({8, 64})},
       dyn},
  };
  // One unit loaded (compiled, or found in the code cache), whatever the batch size.
  auto loads = [] {
    const compiler::CodeCacheStats s = compiler::code_cache_stats();
    return s.compiles + s.disk_hits + s.memory_hits;
  };
  const int64_t before = loads();
  const Lowered l = lower_all(cases);
  EXPECT_EQ(loads() - before, 1);
  for (int64_t n : {2, 7, 512, 1024}) {
    for (size_t i = 0; i < cases.size(); ++i) {
      SCOPED_TRACE(cases[i].name + " batch " + std::to_string(n));
      expect_matches(cases[i], *l.compiled[i], {rand({n, 64}, kFloat32, n)});
    }
  }
  EXPECT_EQ(loads() - before, 1);
  EXPECT_EQ(l.compiled[0]->kernel_names().size(), 1u);
  EXPECT_EQ(l.compiled[3]->kernel_names().size(), 2u) << l.gms[3].graph().to_string();
  // The last rows are read at an offset the kernel takes as a size argument: load(pK + sizes[.
  const std::string src = l.compiled[3]->source();
  bool symbolic_load = false;
  for (size_t at = src.find("load(p"); at != std::string::npos; at = src.find("load(p", at + 1)) {
    size_t q = at + 6;
    while (q < src.size() && std::isdigit(static_cast<unsigned char>(src[q]))) ++q;
    symbolic_load = symbolic_load || src.compare(q, 9, " + sizes[") == 0;
  }
  EXPECT_TRUE(symbolic_load) << src;
  // Outside the Dim's range: the graph's own error.
  EXPECT_THROW((*l.compiled[0])({rand({1025, 64})}), ValueError);
  EXPECT_THROW((*l.compiled[0])({rand({8, 63})}), ValueError);
}

// Note [Unbacked symbols]: a mask's selection feeds generated kernels whose size argument is
// the data-dependent count, bound when the nonzero call ran.
TEST(Lowering, UnbackedSizeFeedsGeneratedKernels) {
  const std::vector<Case> cases = {
      {"selection",
       [](auto& xs) {
         Tensor picked = xs[0].index({xs[0] > 0});
         return std::vector<Tensor>{(picked * 2 + 1).exp(), ((picked - 1).relu() * 3).sum()};
       },
       {rand({8, 16})},
       {.mode = TracingMode::Fake}},
  };
  const Lowered l = lower_all(cases);
  EXPECT_GE(l.compiled[0]->kernel_names().size(), 1u);
  EXPECT_NE(l.gms[0].graph().to_string().find("u0"), std::string::npos);
  for (uint64_t seed : {2, 3, 4}) {
    SCOPED_TRACE(seed);
    expect_matches(cases[0], *l.compiled[0], {rand({8, 16}, kFloat32, seed)});
  }
  expect_matches(cases[0], *l.compiled[0], {full({8, 16}, -1.0)});  // nothing selected
  expect_matches(cases[0], *l.compiled[0], {full({8, 16}, 0.5)});   // everything
}

TEST(Lowering, ProfilerEventPerKernel) {
  const Case c{"chain",
               [](auto& xs) { return std::vector<Tensor>{(xs[0] * 2 + 1).relu().sum(-1)}; },
               {rand({16, 16})}};
  const Lowered l = lower_all({c});
  profiler::profile p;
  {
    profiler::ProfileGuard guard(p);
    (*l.compiled[0])(c.inputs);
  }
  int found = 0;
  for (const auto& e : p.events()) found += e.name == "fused_mul_add_relu_sum";
  EXPECT_EQ(found, 1);
}

TEST(Lowering, CompileErrorNamesUnit) {
  EXPECT_THROW(compiler::load_source({"broken_unit", "this is not C++"}), compiler::CompileError);
}

}  // namespace
}  // namespace ember::test
