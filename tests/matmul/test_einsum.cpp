// einsum, tensordot and kron against loop references.
#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"
#include "matmul/matmul_ref.h"
#include "opdb.h"

using namespace ember;
using test::EinsumRef;
using test::OpInfo;
using test::OpTest;
using test::Reference;
using test::Sample;

namespace {

using Shape = std::vector<int64_t>;

Tensor mk(Shape shape, ScalarType dt, uint64_t seed) {
  const bool fl = is_floating_point(dt);
  return test::make_tensor(shape, dt, fl ? -2 : -5, fl ? 2 : 5, seed);
}

const std::vector<ScalarType>& two_operand_dtypes() {
  static const std::vector<ScalarType> v = {kFloat64, kFloat32, kFloat16, kBFloat16, kUInt8,
                                            kInt8,    kInt16,   kInt32,   kInt64};
  return v;
}
// Chains round intermediate results; the 16-bit floats get their own test below.
const std::vector<ScalarType>& chain_dtypes() {
  static const std::vector<ScalarType> v = {kFloat64, kFloat32, kUInt8, kInt8,
                                            kInt16,   kInt32,   kInt64};
  return v;
}

struct EinsumCase {
  std::string eq;              // as passed to einsum
  std::vector<Shape> shapes;   // operand shapes
  std::string ref_eq;          // explicit, letters only: what the loop reference evaluates
  bool int64_result = false;   // integer inputs give int64 (a torch.sum inside einsum)
  bool chain = false;          // three operands
  bool noncontiguous = false;  // operands as strided views
};

const std::vector<EinsumCase>& einsum_cases() {
  static const std::vector<EinsumCase> v = {
      {"ij,jk->ik", {{3, 4}, {4, 5}}, "ij,jk->ik"},
      {"ij,jk->ik", {{3, 4}, {4, 5}}, "ij,jk->ik", false, false, true},
      {"ij,jk", {{3, 4}, {4, 5}}, "ij,jk->ik"},
      {" ij , jk -> ik ", {{3, 4}, {4, 5}}, "ij,jk->ik"},
      {"ii->i", {{4, 4}}, "ii->i"},
      {"ii", {{4, 4}}, "ii->", true},
      {"iij->j", {{3, 3, 4}}, "iij->j", true},
      {"bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}, "bij,bjk->bik"},
      {"bij,bkj->bik", {{2, 3, 4}, {2, 5, 4}}, "bij,bkj->bik"},
      {"...ij,...jk->...ik", {{2, 3, 4}, {2, 4, 5}}, "aij,ajk->aik"},
      {"...ij,...jk->...ik", {{2, 1, 3, 4}, {5, 4, 2}}, "abij,bjk->abik"},
      {"...ij,...jk", {{2, 3, 4}, {2, 4, 5}}, "aij,ajk->aik"},
      {"i...->...", {{3, 2, 4}}, "iab->ab", true},
      {"...->...", {{2, 3}}, "ab->ab"},
      {"i,j->ij", {{3}, {4}}, "i,j->ij"},
      {"ij,kl->ijkl", {{2, 3}, {2, 2}}, "ij,kl->ijkl"},
      {"ij->", {{3, 4}}, "ij->", true},
      {"ij->", {{0, 3}}, "ij->", true},
      {"i->", {{5}}, "i->", true},
      {"ijk->kji", {{2, 3, 4}}, "ijk->kji"},
      {"ijk->kji", {{2, 3, 4}}, "ijk->kji", false, false, true},
      {"ba", {{2, 3}}, "ba->ab"},
      {"Ab,bC->AC", {{3, 4}, {4, 2}}, "Ab,bC->AC"},
      {"i,i->", {{5}, {5}}, "i,i->"},
      {"i,i", {{5}, {5}}, "i,i->"},
      {"ij,ij->ij", {{3, 4}, {3, 4}}, "ij,ij->ij"},
      {"ij,ij->", {{3, 4}, {3, 4}}, "ij,ij->"},
      {"ij,ij->i", {{3, 1}, {3, 4}}, "ij,ij->i", true},  // j summed in operand 1 alone
      {"ij,j->i", {{3, 4}, {4}}, "ij,j->i"},
      {"ij,k->i", {{3, 4}, {5}}, "ij,k->i", true},
      {"ij,jk->ik", {{3, 0}, {0, 4}}, "ij,jk->ik"},
      {"ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 5}}, "ij,jk,kl->il", false, true},
      {"bn,anm,bm->ba", {{2, 3}, {4, 3, 5}, {2, 5}}, "bn,anm,bm->ba", false, true},
      {",i->i", {{}, {3}}, ",i->i"},
      {"i,j,k->ijk", {{2}, {3}, {2}}, "i,j,k->ijk", false, true},
  };
  return v;
}

std::string case_name(const EinsumCase& c, size_t i) {
  std::string n = "einsum_" + std::to_string(i) + "_";
  for (char ch : c.eq) {
    if (std::isalpha(static_cast<unsigned char>(ch)))
      n += ch;
    else if (ch == ',')
      n += '_';
    else if (ch == '>')
      n += "_to_";
    else if (ch == '.')
      n += 'E';
  }
  return n;
}

std::vector<OpInfo> einsum_ops() {
  std::vector<OpInfo> ops;
  const auto& cases = einsum_cases();
  for (size_t i = 0; i < cases.size(); ++i) {
    const EinsumCase c = cases[i];
    OpInfo info;
    info.name = case_name(c, i);
    info.dtypes = c.chain ? chain_dtypes() : two_operand_dtypes();
    info.samples = [c](ScalarType dt) {
      Sample s{{}, c.eq};
      uint64_t seed = 1;
      for (const auto& shape : c.shapes) {
        Tensor t = mk(shape, dt, seed++);
        s.inputs.push_back(c.noncontiguous ? test::make_noncontiguous(t) : t);
      }
      return std::vector<Sample>{s};
    };
    info.op = [c](const std::vector<Tensor>& in) { return einsum(c.eq, in); };
    info.reference = [c](const std::vector<Tensor>& in) {
      ScalarType dt = in[0].dtype();
      if (c.int64_result && is_integral(dt, true)) dt = kInt64;
      return EinsumRef{c.ref_eq, dt}(in);
    };
    info.tol_scale = 6;
    if (c.chain) {
      info.shape_only_dtypes = {kFloat16, kBFloat16};
      info.values_checked_in = "Einsum.SixteenBitChainsRoundIntermediates";
    }
    ops.push_back(info);
  }
  return ops;
}

INSTANTIATE_TEST_SUITE_P(Einsum, OpTest, ::testing::ValuesIn(einsum_ops()), test::op_test_name);

TEST(Einsum, SixteenBitChainsRoundIntermediates) {
  // Each pairwise product rounds once: compare with a magnitude-based tolerance.
  for (ScalarType dt : {kFloat16, kBFloat16}) {
    Tensor a = mk({2, 3}, dt, 1), b = mk({3, 4}, dt, 2), c = mk({4, 5}, dt, 3);
    Reference ref = EinsumRef{"ij,jk,kl->il", kFloat64}({a, b, c});
    Tensor r = einsum("ij,jk,kl->il", {a, b, c});
    EXPECT_EQ(r.dtype(), dt);
    const double atol = dt == kFloat16 ? 0.05 : 0.5;
    EXPECT_TRUE(test::close(r, ref.shape, ref.values, 0.02, atol)) << dtype_name(dt);
  }
}

TEST(Einsum, ViewsAndDtypes) {
  Tensor x = mk({3, 4}, kFloat32, 1);
  Tensor t = einsum("ij->ji", {x});
  EXPECT_TRUE(t.is_alias_of(x));  // a permutation is a view, as in PyTorch
  EXPECT_EQ(t.sizes(), (Shape{4, 3}));
  Tensor sq = mk({4, 4}, kFloat64, 2);
  EXPECT_TRUE(einsum("ii->i", {sq}).is_alias_of(sq));
  // Integer sums promote like torch.sum; products keep the dtype.
  EXPECT_EQ(einsum("ij->", {mk({2, 2}, kInt32, 3)}).dtype(), kInt64);
  EXPECT_EQ(einsum("ij,jk->ik", {mk({2, 2}, kInt32, 3), mk({2, 2}, kInt32, 4)}).dtype(), kInt32);
  // Bool: outer products (no sum) work; sums count as torch.sum does; contractions are rejected.
  Tensor b1 = test::from_values({3}, {1, 0, 1}, kBool), b2 = test::from_values({2}, {1, 1}, kBool);
  Tensor o = einsum("i,j->ij", {b1, b2});
  EXPECT_EQ(o.dtype(), kBool);
  EXPECT_EQ(test::values(o), (std::vector<double>{1, 1, 0, 0, 1, 1}));
  Tensor cnt = einsum("i->", {b1});
  EXPECT_EQ(cnt.dtype(), kInt64);
  EXPECT_EQ(cnt.item<int64_t>(), 2);
  EXPECT_THROW(einsum("i,i->", {b1, b1}), TypeError);
  // Mixed dtypes promote when nothing is summed, as PyTorch's mul; bmm rejects them otherwise.
  Tensor f = mk({3}, kFloat32, 5), d = mk({2}, kFloat64, 6);
  EXPECT_EQ(einsum("i,j->ij", {f, d}).dtype(), kFloat64);
  EXPECT_THROW(einsum("i,i->", {f, mk({3}, kFloat64, 7)}), RuntimeError);
}

TEST(EinsumErrors, MessagesFollowPyTorch) {
  Tensor m = mk({3, 4}, kFloat32, 1), v = mk({4}, kFloat32, 2), sq = mk({3, 3}, kFloat32, 3);
  test::expect_errors<RuntimeError>({
      {"no operands", [&] { einsum("ij", {}); },
       "[einsum] einsum(): must provide at least one operand"},
      {"invalid subscript",
       [&] {
         einsum("i1,j", {v, v});
       },
       "[einsum] einsum(): invalid subscript given at index 1 in the equation string, subscripts "
       "must be in [a-zA-Z]"},
      {"invalid output subscript", [&] { einsum("ij->i2", {m}); },
       "invalid subscript given at index 5"},
      {"fewer operands", [&] { einsum("i,j", {v}); },
       "[einsum] einsum(): fewer operands were provided than specified in the equation"},
      {"more operands",
       [&] {
         einsum("i", {v, v});
       },
       "[einsum] einsum(): more operands were provided than specified in the equation"},
      {"subscript count", [&] { einsum("ijk", {m}); },
       "[einsum] einsum(): the number of subscripts in the equation (3) does not match the "
       "number of dimensions (2) for operand 0 and no ellipsis was given"},
      {"too many with ellipsis", [&] { einsum("ijk...", {m}); },
       "einsum(): the number of subscripts in the equation (3) is more than the number of "
       "dimensions (2) for operand 0"},
      {"output twice", [&] { einsum("ij->ii", {m}); },
       "[einsum] einsum(): output subscript i appears more than once in the output"},
      {"output unknown", [&] { einsum("ij->k", {m}); },
       "[einsum] einsum(): output subscript k does not appear in the equation for any input "
       "operand"},
      {"size mismatch",
       [&] {
         einsum("ij,j->i", {m, mk({5}, kFloat32, 4)});
       },
       "[einsum] einsum(): subscript j has size 5 for operand 1 which does not broadcast with "
       "previously seen size 4"},
      {"diagonal mismatch", [&] { einsum("ii->i", {m}); },
       "[einsum] einsum(): subscript i is repeated for operand 0 but the sizes don't match, 4 != "
       "3"},
      {"bad ellipsis", [&] { einsum("i.j", {m}); },
       "[einsum] einsum(): found '.' for operand 0 that is not part of any ellipsis"},
      {"two ellipses", [&] { einsum("......", {m}); },
       "[einsum] einsum(): found '.' for operand 0 for which an ellipsis was already found"},
      {"output two ellipses", [&] { einsum("...->......", {m}); },
       "[einsum] einsum(): found '.' for output but an ellipsis (...) was already found"},
      {"ellipsis broadcast",
       [&] {
         einsum("...i,...i->...", {mk({2, 3}, kFloat32, 5), sq});
       },
       "[einsum] einsum(): dimension 0 covered by ellipsis in operand 1has size 3 which does not "
       "broadcast with previously seen ellipsis with size 2 for the respective dimension"},
      {"undefined", [&] { einsum("i", {Tensor()}); }, "[einsum]"},
  });
}

// ---- tensordot

std::vector<OpInfo> tensordot_ops() {
  auto op_info = [](std::string name, std::vector<ScalarType> dtypes, std::vector<Shape> shapes,
                    std::function<Tensor(const std::vector<Tensor>&)> op, std::string ref_eq,
                    bool noncontig = false, std::vector<ScalarType> rejected = {kBool}) {
    OpInfo info;
    info.name = std::move(name);
    info.dtypes = std::move(dtypes);
    info.samples = [shapes, noncontig](ScalarType dt) {
      Tensor a = mk(shapes[0], dt, 1), b = mk(shapes[1], dt, 2);
      if (noncontig) a = test::make_noncontiguous(a);
      return std::vector<Sample>{{{a, b}, "sample"}};
    };
    info.op = std::move(op);
    info.reference = [ref_eq](const std::vector<Tensor>& in) {
      return EinsumRef{ref_eq, in[0].dtype()}(in);
    };
    info.tol_scale = 6;
    info.rejected_dtypes = std::move(rejected);
    return info;
  };
  const auto& dt = two_operand_dtypes();
  std::vector<ScalarType> floats = {kFloat64, kFloat32, kFloat16, kBFloat16};
  return {
      op_info(
          "tensordot_dims2", dt, {{3, 4, 5}, {4, 5, 2}},
          [](const auto& in) { return tensordot(in[0], in[1]); }, "aij,ijb->ab"),
      op_info(
          "tensordot_dims1", dt, {{3, 4}, {4, 5}},
          [](const auto& in) { return tensordot(in[0], in[1], 1); }, "ij,jk->ik", true),
      op_info(
          "tensordot_dims0", dt, {{3}, {2, 2}},
          [](const auto& in) { return tensordot(in[0], in[1], 0); }, "i,jk->ijk"),
      op_info(
          "tensordot_lists", dt, {{3, 4, 5}, {5, 3, 2}},
          [](const auto& in) {
            return tensordot(in[0], in[1], {0, 2}, {1, 0});
          },
          "xyz,zxw->yw"),
      op_info(
          "tensordot_negative_dims", dt, {{3, 4}, {4, 5}},
          [](const auto& in) { return tensordot(in[0], in[1], {-1}, {-2}); }, "ij,jk->ik"),
      op_info(
          "tensordot_empty", dt, {{3, 0}, {0, 2}},
          [](const auto& in) { return tensordot(in[0], in[1], 1); }, "ij,jk->ik"),
      // A size-1 contracted dim is summed on the other side first (integer and bool inputs
      // turn int64 there and fail in mm with a dtype mismatch, as in PyTorch).
      op_info("tensordot_broadcast", floats, {{3, 1}, {4, 5}},
              [](const auto& in) { return tensordot(in[0], in[1], {1}, {0}); }, "ij,jk->ik", false,
              {}),
      op_info(
          "tensordot_0d", dt, {{}, {2, 3}},
          [](const auto& in) { return tensordot(in[0], in[1], 0); }, ",jk->jk"),
  };
}

INSTANTIATE_TEST_SUITE_P(Tensordot, OpTest, ::testing::ValuesIn(tensordot_ops()),
                         test::op_test_name);

TEST(TensordotErrors, MessagesFollowPyTorch) {
  Tensor a = mk({3, 4}, kFloat32, 1), b = mk({4, 5}, kFloat32, 2);
  test::expect_errors<RuntimeError>({
      {"negative dims", [&] { tensordot(a, b, -1); },
       "[tensordot] tensordot expects dims >= 0, but got dims=-1"},
      {"list lengths",
       [&] {
         tensordot(a, b, {0, 1}, {0});
       },
       "[tensordot] both dimension lists should have same length"},
      {"dtype",
       [&] {
         tensordot(a, mk({4, 5}, kFloat64, 3), 1);
       },
       "[tensordot] both inputs should have same dtype"},
      {"sizes", [&] { tensordot(a, b, {0}, {0}); },
       "[tensordot] contracted dimensions need to match, but first has size 3 in dim 0 and "
       "second has size 4 in dim 0"},
      {"repeated dim",
       [&] {
         tensordot(a, b, {1, 1}, {0, 1});
       },
       "[tensordot] dim 1 appears multiple times in the list of dims"},
      {"int broadcast",
       [&] {
         tensordot(mk({3, 1}, kInt32, 4), mk({4, 5}, kInt32, 5), 1);
       },
       "[tensordot] expected m1 and m2 to have the same dtype, but got: int != long int"},
  });
  test::expect_errors<IndexError>({
      {"dims too large", [&] { tensordot(a, b, 3); }, "[tensordot] Dimension out of range"},
      {"dim out of range", [&] { tensordot(a, b, {2}, {0}); },
       "[tensordot] Dimension out of range"},
      {"0-d", [&] { tensordot(mk({}, kFloat32, 6), b, {0}, {0}); },
       "[tensordot] Dimension specified as 0 but tensor has no dimensions"},
  });
}

// ---- kron

Reference kron_ref(const std::vector<Tensor>& in) {
  const Tensor& a = in[0];
  const Tensor& b = in[1];
  const ScalarType dt = promote_types(a.dtype(), b.dtype());
  const int64_t nd = std::max(a.dim(), b.dim());
  Shape sa(nd, 1), sb(nd, 1), sr(nd);
  for (int64_t i = 0; i < a.dim(); ++i) sa[nd - a.dim() + i] = a.sizes()[i];
  for (int64_t i = 0; i < b.dim(); ++i) sb[nd - b.dim() + i] = b.sizes()[i];
  int64_t n = 1;
  for (int64_t d = 0; d < nd; ++d) {
    sr[d] = sa[d] * sb[d];
    n *= sr[d];
  }
  auto va = test::values(a), vb = test::values(b);
  Reference ref{sr, std::vector<double>(n), dt};
  for (int64_t o = 0; o < n; ++o) {
    int64_t rem = o, fa = 0, fb = 0, ma = 1, mb = 1;
    for (int64_t d = nd - 1; d >= 0; --d) {
      const int64_t r = rem % sr[d];
      rem /= sr[d];
      fa += (r / sb[d]) * ma;
      fb += (r % sb[d]) * mb;
      ma *= sa[d];
      mb *= sb[d];
    }
    const double p = va[fa] * vb[fb];
    ref.values[o] = is_integral(dt, false)
                        ? test::wrap_to(dt, static_cast<uint64_t>(static_cast<int64_t>(p)))
                        : p;
  }
  return ref;
}

std::vector<Sample> kron_samples(ScalarType dt) {
  return {
      {{mk({2, 3}, dt, 1), mk({4, 5}, dt, 2)}, "2d.2d"},
      {{mk({2}, dt, 3), mk({3, 4}, dt, 4)}, "1d.2d"},
      {{mk({2, 1, 3}, dt, 5), mk({2, 2}, dt, 6)}, "3d.2d"},
      {{mk({}, dt, 7), mk({3}, dt, 8)}, "0d.1d"},
      {{mk({}, dt, 9), mk({}, dt, 10)}, "0d.0d"},
      {{mk({0, 2}, dt, 11), mk({3}, dt, 12)}, "empty"},
      {{test::make_noncontiguous(mk({2, 3}, dt, 13)), mk({2, 2}, dt, 14).t()}, "noncontiguous"},
      {{mk({2, 2}, dt, 15), mk({2}, kFloat64, 16)}, "promotes-with-float64"},
  };
}

INSTANTIATE_TEST_SUITE_P(
    Kron, OpTest,
    ::testing::Values(OpInfo{"kron", test::all_dtypes(), kron_samples,
                             [](const auto& in) { return kron(in[0], in[1]); }, kron_ref},
                      OpInfo{"Tensor_kron", test::all_dtypes(), kron_samples,
                             [](const auto& in) { return in[0].kron(in[1]); }, kron_ref}),
    test::op_test_name);

}  // namespace
