// Error tables for the reductions and scans: bad and repeated dims, empty reductions without an
// identity, unsupported dtypes.
#include <limits>

#include "opdb.h"

namespace ember::test {
namespace {

const double kInf = std::numeric_limits<double>::infinity();

TEST(ReductionErrors, DimOutOfRange) {
  Tensor x = make_tensor({2, 3}, kFloat32);
  Tensor xi = make_tensor({2, 3}, kInt64);
  const char* msg = "Dimension out of range (expected to be in range of [-2, 1], but got 2)";
  expect_errors<IndexError>({
      {"sum", [&] { x.sum(2); }, std::string("[sum] ") + msg},
      {"sum list",
       [&] {
         x.sum({0, 2});
       },
       msg},
      {"nansum", [&] { x.nansum(2); }, "[nansum]"},
      {"mean", [&] { x.mean(2); }, std::string("[mean] ") + msg},
      {"nanmean", [&] { x.nanmean(-3); }, "[nanmean]"},
      {"prod", [&] { x.prod(2); }, "[prod]"},
      {"max dim", [&] { x.max(2); }, std::string("[max] ") + msg},
      {"min dim", [&] { x.min(-3); }, "[min]"},
      {"amax", [&] { x.amax(2); }, std::string("[amax] ") + msg},
      {"amin", [&] { x.amin(-3); }, "[amin]"},
      {"aminmax", [&] { x.aminmax(2); }, "[aminmax]"},
      {"argmax", [&] { x.argmax(2); }, std::string("[argmax] ") + msg},
      {"argmin", [&] { x.argmin(-3); }, "[argmin]"},
      {"var", [&] { x.var(2); }, "[var]"},
      {"std", [&] { x.std(2); }, "[std]"},
      {"var_mean", [&] { var_mean(x, 2); }, "[var_mean]"},
      {"std_mean", [&] { std_mean(x, 2); }, "[std_mean]"},
      {"norm", [&] { x.norm(2, 2); }, "[norm]"},
      {"logsumexp", [&] { x.logsumexp(2); }, "[logsumexp]"},
      {"all", [&] { x.all(2); }, "[all]"},
      {"any", [&] { x.any(2); }, "[any]"},
      {"count_nonzero", [&] { x.count_nonzero(2); }, "[count_nonzero]"},
      {"cumsum", [&] { x.cumsum(2); }, std::string("[cumsum] ") + msg},
      {"cumprod", [&] { xi.cumprod(-3); }, "[cumprod]"},
      {"cummax", [&] { x.cummax(2); }, "[cummax]"},
      {"cummin", [&] { x.cummin(2); }, "[cummin]"},
      {"logcumsumexp", [&] { x.logcumsumexp(2); }, "[logcumsumexp]"},
      {"0-d dim 1", [&] { make_tensor({}, kFloat32).sum(1); },
       "Dimension out of range (expected to be in range of [-1, 0], but got 1)"},
      {"0-d cumsum dim 1", [&] { make_tensor({}, kFloat32).cumsum(1); }, "[cumsum]"},
  });
}

TEST(ReductionErrors, RepeatedDim) {
  Tensor x = make_tensor({2, 3}, kFloat32);
  expect_errors<RuntimeError>({
      {"sum",
       [&] {
         x.sum({0, 0});
       },
       "[sum] dim 0 appears multiple times in the list of dims"},
      {"sum negative",
       [&] {
         x.sum({1, -1});
       },
       "dim 1 appears multiple times"},
      {"mean",
       [&] {
         x.mean({1, -1});
       },
       "[mean]"},
      {"amax",
       [&] {
         x.amax({0, -2});
       },
       "[amax]"},
      {"var",
       [&] {
         x.var({0, 0});
       },
       "[var]"},
      {"norm",
       [&] {
         x.norm(2, {1, 1});
       },
       "[norm]"},
      {"logsumexp",
       [&] {
         x.logsumexp({0, 0});
       },
       "[logsumexp]"},
      {"all",
       [&] {
         x.all({0, 0});
       },
       "[all]"},
      {"count_nonzero",
       [&] {
         x.count_nonzero({0, 0});
       },
       "[count_nonzero]"},
      {"0-d",
       [&] {
         make_tensor({}, kFloat32).sum({0, -1});
       },
       "[sum]"},
  });
}

TEST(ReductionErrors, EmptyWithoutIdentity) {
  Tensor e = make_tensor({0, 3}, kFloat32);
  expect_errors<RuntimeError>({
      {"max()", [&] { e.max(); },
       "[max] max(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
       "reduction dim with the 'dim' argument."},
      {"min()", [&] { e.min(); }, "[min] min(): Expected reduction dim to be specified"},
      {"amax all", [&] { e.amax(); }, "[amax] amax(): Expected reduction dim to be specified"},
      {"amin all", [&] { e.amin(); }, "[amin]"},
      {"aminmax all", [&] { e.aminmax(); },
       "[aminmax] aminmax(): cannot compute aminmax over an empty dimension as the operation "
       "has no identity."},
      {"norm inf all", [&] { e.norm(kInf); },
       "[norm] linalg.vector_norm cannot compute the inf norm on an empty tensor because the "
       "operation does not have an identity"},
      {"norm -1 dim", [&] { e.norm(-1, 0); },
       "linalg.vector_norm cannot compute the -1 norm on the dimension 0"},
      {"norm -inf dim",
       [&] {
         e.norm(-kInf, {0, 1});
       },
       "the -inf norm"},
  });
  expect_errors<IndexError>({
      {"max(dim)", [&] { e.max(0); },
       "[max] max(): Expected reduction dim 0 to have non-zero size."},
      {"min(dim)", [&] { e.min(-2, true); }, "[min] min(): Expected reduction dim 0"},
      {"amax(dim)", [&] { e.amax(0); },
       "[amax] amax(): Expected reduction dim 0 to have non-zero size."},
      {"amin(dims)",
       [&] {
         e.amin({1, 0});
       },
       "amin(): Expected reduction dim 0"},
      {"argmax()", [&] { e.argmax(); },
       "[argmax] argmax(): Expected reduction dim to be specified for input.numel() == 0."},
      {"argmin(dim)", [&] { e.argmin(0); }, "argmin(): Expected reduction dim 0"},
      {"aminmax(dim)", [&] { e.aminmax(0); }, "[aminmax]"},
  });
  // Reducing the non-empty dim of an empty tensor is fine (an empty result).
  EXPECT_EQ(e.amax(1).sizes(), std::vector<int64_t>{0});
  EXPECT_EQ(std::get<1>(e.max(1, true)).sizes(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(e.argmin(1).sizes(), std::vector<int64_t>{0});
  EXPECT_EQ(e.norm(kInf, 1).sizes(), std::vector<int64_t>{0});
}

TEST(ReductionErrors, UnsupportedDtypes) {
  Tensor i = make_tensor({2, 3}, kInt64);
  Tensor b = make_tensor({2, 3}, kBool);
  Tensor f = make_tensor({2, 3}, kFloat32);
  Tensor d = make_tensor({2, 3}, kFloat64);
  expect_errors<TypeError>({
      {"mean int", [&] { i.mean(); },
       "[mean] mean(): could not infer output dtype. Input dtype must be either a floating point "
       "or complex dtype. Got: Long"},
      {"mean int names int64", [&] { i.mean(0); }, "int64"},
      {"mean bool", [&] { b.mean(); }, "bool"},
      {"mean int dtype", [&] { mean(f, 0, false, kInt64); },
       "Optional dtype must be either a floating point or complex dtype. Got: Long"},
      {"nanmean int", [&] { i.nanmean(); }, "[nanmean] nanmean(): expected input to have floating"},
      {"var int", [&] { i.var(); },
       "[var] std and var only support floating point and complex dtypes, got Long (torch.int64)"},
      {"std bool", [&] { b.std(); }, "bool"},
      {"var_mean int", [&] { var_mean(i); }, "[var_mean]"},
      {"norm int", [&] { i.norm(); },
       "[norm] linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"},
      {"norm int dtype", [&] { norm(f, 2, {}, false, kInt32); }, "int32"},
      {"argmax bool", [&] { b.argmax(); }, "[argmax] \"argmax_cpu\" not implemented for 'Bool'"},
      {"argmin bool", [&] { b.argmin(0); }, "bool"},
      {"logcumsumexp int", [&] { i.logcumsumexp(0); },
       "[logcumsumexp] \"logcumsumexp_out_cpu\" not implemented for 'Long'"},
      {"sum complex dtype", [&] { f.sum(kComplexFloat); }, "complex64"},
      {"cumsum complex dtype", [&] { f.cumsum(0, kComplexFloat); }, "complex64"},
  });
  expect_errors<RuntimeError>({
      {"norm narrowing dtype", [&] { norm(d, 2, {}, false, kFloat32); },
       "[norm] linalg.vector_norm: the dtype of the input (Double) should be convertible without "
       "narrowing to the specified dtype (Float)"},
      {"undefined", [&] { Tensor().sum(); }, "undefined"},
  });
}

}  // namespace
}  // namespace ember::test
