// Matrix products: PyTorch's argument checks, then 3-D views into the Matmul primitive
// (src/primitives/matmul.h). matmul, outer and kron are composites of it and view ops.
#include "ember/ops/matmul.h"

#include <numeric>

#include "ember/ops/shape.h"
#include "ops/matmul_internal.h"
#include "ops/promotion.h"
#include "ops/util.h"
#include "primitives/matmul.h"

namespace ember {
namespace ops {

const char* type_meta_name(ScalarType t) {
  switch (t) {
    case kBool:
      return "bool";
    case kUInt8:
      return "unsigned char";
    case kInt8:
      return "signed char";
    case kInt16:
      return "short int";
    case kInt32:
      return "int";
    case kInt64:
      return "long int";
    case kFloat16:
      return "c10::Half";
    case kBFloat16:
      return "c10::BFloat16";
    case kFloat32:
      return "float";
    case kFloat64:
      return "double";
    default:
      return dtype_name(t);
  }
}

Tensor batched_product(const char* name, const Tensor& a, const Tensor& b, const Tensor& self,
                       const Scalar& beta, const Scalar& alpha) {
  const SymInt batches = sym_max(a.sym_size(0), b.sym_size(0));
  const SymInt m = a.sym_size(1), n = b.sym_size(2);
  // A batch of one is broadcast with stride 0 (a view, no copy).
  Tensor a3 = a.sym_size(0) == batches ? a : expand(a, {batches, m, a.sym_size(2)});
  Tensor b3 = b.sym_size(0) == batches ? b : expand(b, {batches, b.sym_size(1), n});
  std::vector<Tensor> inputs{a3, b3};
  if (self.defined()) inputs.push_back(self);
  return dispatch(Matmul(name, alpha, beta), inputs)[0];
}

}  // namespace ops

namespace {

using ops::check_defined;
using ops::shape_str;
using ops::type_meta_name;

// PyTorch's CPU product kernels cover every type but bool ("addmm_impl_cpu_", "bmm", ...).
void check_not_bool(const Tensor& t, const char* op, const char* kernel) {
  EMBER_CHECK_TYPE(t.dtype() != kBool, "[", op, "] \"", kernel,
                   "\" not implemented for 'Bool' (dtype bool)");
}

// at::expand_size's checks and wording, then a broadcast view.
Tensor expand_self(const Tensor& self, const std::vector<SymInt>& target, const char* op) {
  const int64_t nd = static_cast<int64_t>(target.size()), sd = self.dim();
  EMBER_CHECK(sd <= nd, "[", op, "] The number of sizes provided (", nd,
              ") must be greater or equal to the number of dimensions in the tensor (", sd, ")");
  const std::vector<SymInt> sizes = self.sym_sizes();
  for (int64_t i = 0; i < sd; ++i) {
    const SymInt &s = sizes[i], &t = target[nd - sd + i];
    EMBER_CHECK(s == t || s == 1, "[", op, "] The expanded size of the tensor (", t,
                ") must match the existing size (", s, ") at non-singleton dimension ", nd - sd + i,
                ".  Target sizes: ", shape_str(target), ".  Tensor sizes: ", shape_str(sizes));
  }
  return expand(self, SymIntList(target));
}

}  // namespace

namespace ops {

Tensor mm_checked(const Tensor& a, const Tensor& b, const char* op) {
  EMBER_CHECK(a.dim() == 2, "[", op, "] self must be a matrix");
  EMBER_CHECK(b.dim() == 2, "[", op, "] mat2 must be a matrix");
  const SymInt m = a.sym_size(0), k = a.sym_size(1), k2 = b.sym_size(0), n = b.sym_size(1);
  EMBER_CHECK(k == k2, "[", op, "] mat1 and mat2 shapes cannot be multiplied (", m, "x", k, " and ",
              k2, "x", n, ")");
  EMBER_CHECK(a.dtype() == b.dtype(), "[", op,
              "] expected m1 and m2 to have the same dtype, but got: ", type_meta_name(a.dtype()),
              " != ", type_meta_name(b.dtype()));
  check_not_bool(a, op, "addmm_impl_cpu_");
  Tensor r = batched_product("mm", unsqueeze(a, 0), unsqueeze(b, 0));
  return reshape(r, {m, n});
}

Tensor bmm_checked(const Tensor& a, const Tensor& b, const char* op) {
  EMBER_CHECK(a.dim() == 3, "[", op, "] batch1 must be a 3D tensor");
  EMBER_CHECK(b.dim() == 3, "[", op, "] batch2 must be a 3D tensor");
  const std::vector<SymInt> as = a.sym_sizes(), bs = b.sym_sizes();
  EMBER_CHECK(as[0] == bs[0], "[", op, "] batch1 and batch2 must have same number of batches, got ",
              as[0], " and ", bs[0]);
  EMBER_CHECK(as[2] == bs[1], "[", op,
              "] Expected size for first two dimensions of batch2 tensor to be: [", as[0], ", ",
              as[2], "] but got: [", bs[0], ", ", bs[1], "].");
  EMBER_CHECK(a.dtype() == b.dtype(), "[", op, "] expected scalar type ",
              scalar_type_name(a.dtype()), " but found ", scalar_type_name(b.dtype()));
  check_not_bool(a, op, "bmm");
  return batched_product("bmm", a, b);
}

Tensor mv_checked(const Tensor& mat, const Tensor& vec, const char* op) {
  EMBER_CHECK(mat.dim() == 2 && vec.dim() == 1, "[", op,
              "] vector + matrix @ vector expected, got 1, ", mat.dim(), ", ", vec.dim());
  const std::vector<SymInt> ms = mat.sym_sizes();
  EMBER_CHECK(ms[1] == vec.sym_size(0), "[", op, "] size mismatch, got input (", ms[0], "), mat (",
              ms[0], "x", ms[1], "), vec (", vec.sym_size(0), ")");
  // mv's result takes vec's dtype and plays addmv's "input".
  EMBER_CHECK(mat.dtype() == vec.dtype(), "[", op,
              "] addmv input tensors must have the same dtype, but got ",
              scalar_type_name(vec.dtype()), ", ", scalar_type_name(mat.dtype()), ", and ",
              scalar_type_name(vec.dtype()));
  check_not_bool(mat, op, "addmv_impl_cpu");
  Tensor r = batched_product("mv", unsqueeze(mat, 0), unsqueeze(unsqueeze(vec, 1), 0));
  return reshape(r, {ms[0]});
}

Tensor dot_checked(const Tensor& a, const Tensor& b, const char* op) {
  EMBER_CHECK(a.dim() == 1 && b.dim() == 1, "[", op, "] 1D tensors expected, but got ", a.dim(),
              "D and ", b.dim(), "D tensors");
  EMBER_CHECK(a.dtype() == b.dtype(), "[", op,
              "] dot : expected both vectors to have same dtype, but found ",
              scalar_type_name(a.dtype()), " and ", scalar_type_name(b.dtype()));
  const SymInt na = a.sym_numel(), nb = b.sym_numel();
  EMBER_CHECK(na == nb, "[", op, "] inconsistent tensor size, expected tensor [", na, "] and src [",
              nb, "] to have the same number of elements, but got ", na, " and ", nb,
              " elements respectively");
  check_not_bool(a, op, "dot");
  Tensor r = batched_product(op, unsqueeze(unsqueeze(a, 0), 0), unsqueeze(unsqueeze(b, 1), 0));
  return reshape(r, SymIntList(std::vector<int64_t>{}));
}

}  // namespace ops

namespace {

// PyTorch folds an N-D @ (1-D or 2-D) product into one mm/mv when the leading dims of the larger
// operand can be flattened without a copy (and the result needs no transposed copy).
bool should_fold(const Tensor& t1, const Tensor& t2) {
  const bool t1_larger = t1.dim() >= t2.dim();
  const Tensor& big = t1_larger ? t1 : t2;
  const int64_t dim_big = big.dim(), dim_small = t1_larger ? t2.dim() : t1.dim();
  if (!(dim_big >= 3 && dim_small <= 2)) return false;
  if (t1.dim() == 2) return false;
  // SymInts: a dynamic dim is compared by its range (Note [Symbolic shapes]).
  if (big.sym_numel() == 0) return true;
  std::vector<SymInt> sizes = big.sym_sizes(), strides = big.sym_strides();
  if (!t1_larger) {  // the larger operand is used transposed (mT)
    std::swap(sizes[dim_big - 1], sizes[dim_big - 2]);
    std::swap(strides[dim_big - 1], strides[dim_big - 2]);
  }
  for (int64_t i = 0; i < dim_big - 2; ++i) {
    if (strides[i] != strides[i + 1] * sizes[i + 1]) return false;
  }
  return true;
}

Tensor matmul_folded(const Tensor& t1, const Tensor& t2) {
  // Only t1 N-D with t2 1-D/2-D, or t1 1-D with t2 N-D, reach here (see should_fold).
  const bool transpose = t2.dim() > t1.dim();
  const Tensor big = transpose ? t2.mT() : t1;
  const Tensor& small = transpose ? t1 : t2;
  const std::vector<SymInt> bs = big.sym_sizes();
  std::vector<SymInt> out_shape(bs.begin(), bs.end() - 1);
  SymInt folded = 1;
  for (const SymInt& s : out_shape) folded *= s;
  Tensor big2 = reshape(big, {folded, bs.back()});
  if (small.dim() == 2) {
    out_shape.push_back(small.sym_size(1));
    return reshape(ops::mm_checked(big2, small, "matmul"), SymIntList(out_shape));
  }
  return reshape(ops::mv_checked(big2, small, "matmul"), SymIntList(out_shape));
}

Tensor matmul_batched(const Tensor& t1, const Tensor& t2) {
  const int64_t d1 = t1.dim(), d2 = t2.dim();
  const std::vector<SymInt> s1 = t1.sym_sizes(), s2 = t2.sym_sizes();
  const SymInt n = d1 > 1 ? s1[d1 - 2] : SymInt(1), m1 = s1.back();
  const SymInt m2 = d2 > 1 ? s2[d2 - 2] : s2[0], p = d2 > 1 ? s2.back() : SymInt(1);
  std::vector<SymInt> batch1(s1.begin(), s1.begin() + std::max<int64_t>(d1 - 2, 0));
  std::vector<SymInt> batch2(s2.begin(), s2.begin() + std::max<int64_t>(d2 - 2, 0));
  std::vector<SymInt> out_shape = ops::broadcast_pair(batch1, batch2, "matmul");
  SymInt batches = 1;
  for (const SymInt& s : out_shape) batches *= s;
  std::vector<SymInt> e1 = out_shape, e2 = out_shape;
  e1.insert(e1.end(), {n, m1});
  Tensor a = reshape(expand(t1, SymIntList(e1)), {batches, n, m1});
  Tensor b;
  if (d2 == 1) {
    e2.push_back(m2);
    b = unsqueeze(reshape(expand(t2, SymIntList(e2)), {batches, m2}), 2);
  } else {
    e2.insert(e2.end(), {m2, p});
    b = reshape(expand(t2, SymIntList(e2)), {batches, m2, p});
  }
  if (d1 > 1) out_shape.push_back(n);
  if (d2 > 1) out_shape.push_back(p);
  return reshape(ops::bmm_checked(a, b, "matmul"), SymIntList(out_shape));
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  check_defined(a, "matmul", "input");
  check_defined(b, "matmul", "other");
  const int64_t d1 = a.dim(), d2 = b.dim();
  EMBER_CHECK(d1 != 0 && d2 != 0,
              "[matmul] both arguments to matmul need to be at least 1D, but they are ", d1,
              "D and ", d2, "D");
  if (d1 == 1 && d2 == 1) return ops::dot_checked(a, b, "matmul");
  if (d1 == 2 && d2 == 1) return ops::mv_checked(a, b, "matmul");
  if (d1 == 1 && d2 == 2) return squeeze(ops::mm_checked(unsqueeze(a, 0), b, "matmul"), 0);
  if (d1 == 2 && d2 == 2) return ops::mm_checked(a, b, "matmul");
  if (should_fold(a, b)) return matmul_folded(a, b);
  return matmul_batched(a, b);
}

Tensor mm(const Tensor& a, const Tensor& b) {
  check_defined(a, "mm", "input");
  check_defined(b, "mm", "mat2");
  return ops::mm_checked(a, b, "mm");
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  check_defined(a, "bmm", "input");
  check_defined(b, "bmm", "mat2");
  return ops::bmm_checked(a, b, "bmm");
}

Tensor mv(const Tensor& a, const Tensor& v) {
  check_defined(a, "mv", "input");
  check_defined(v, "mv", "vec");
  return ops::mv_checked(a, v, "mv");
}

Tensor dot(const Tensor& a, const Tensor& b) {
  check_defined(a, "dot", "input");
  check_defined(b, "dot", "tensor");
  return ops::dot_checked(a, b, "dot");
}

// Real dtypes only, where vdot is dot (no conjugation).
Tensor vdot(const Tensor& a, const Tensor& b) {
  check_defined(a, "vdot", "input");
  check_defined(b, "vdot", "other");
  return ops::dot_checked(a, b, "vdot");
}

// torch.outer is self.reshape(-1, 1) * vec2: mul's type promotion, bool included. Computed as a
// product with k = 1, which rounds each element once, like mul.
Tensor outer(const Tensor& a, const Tensor& b) {
  check_defined(a, "outer", "input");
  check_defined(b, "outer", "vec2");
  EMBER_CHECK(a.dim() == 1, "[outer] outer: Expected 1-D argument self, but got ", a.dim(), "-D");
  EMBER_CHECK(b.dim() == 1, "[outer] outer: Expected 1-D argument vec2, but got ", b.dim(), "-D");
  const ScalarType dt = promote_types(a.dtype(), b.dtype());
  Tensor r = ops::batched_product("outer", unsqueeze(unsqueeze(a.to(dt), 1), 0),
                                  unsqueeze(unsqueeze(b.to(dt), 0), 0));
  return reshape(r, {a.sym_size(0), b.sym_size(0)});
}

Tensor ger(const Tensor& a, const Tensor& b) { return outer(a, b); }

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
             const Scalar& alpha) {
  check_defined(self, "addmm", "input");
  check_defined(mat1, "addmm", "mat1");
  check_defined(mat2, "addmm", "mat2");
  EMBER_CHECK(self.dtype() == mat2.dtype(),
              "[addmm] self and mat2 must have the same dtype, but "
              "got ",
              scalar_type_name(self.dtype()), " and ", scalar_type_name(mat2.dtype()));
  EMBER_CHECK(mat1.dtype() == mat2.dtype(),
              "[addmm] mat1 and mat2 must have the same dtype, but "
              "got ",
              scalar_type_name(mat1.dtype()), " and ", scalar_type_name(mat2.dtype()));
  EMBER_CHECK(mat1.dim() == 2, "[addmm] mat1 must be a matrix, got ", mat1.dim(), "-D tensor");
  EMBER_CHECK(mat2.dim() == 2, "[addmm] mat2 must be a matrix, got ", mat2.dim(), "-D tensor");
  const SymInt m = mat1.sym_size(0), k = mat1.sym_size(1), k2 = mat2.sym_size(0),
               n = mat2.sym_size(1);
  EMBER_CHECK(k == k2, "[addmm] mat1 and mat2 shapes cannot be multiplied (", m, "x", k, " and ",
              k2, "x", n, ")");
  check_not_bool(mat1, "addmm", "addmm_impl_cpu_");
  Tensor c = unsqueeze(expand_self(self, {m, n}, "addmm"), 0);
  Tensor r = ops::batched_product("addmm", unsqueeze(mat1, 0), unsqueeze(mat2, 0), c, beta, alpha);
  return reshape(r, {m, n});
}

Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
             const Scalar& alpha) {
  check_defined(self, "addmv", "input");
  check_defined(mat, "addmv", "mat");
  check_defined(vec, "addmv", "vec");
  EMBER_CHECK(mat.dim() == 2 && vec.dim() == 1 && self.dim() <= 1,
              "[addmv] vector + matrix @ "
              "vector expected, got ",
              self.dim(), ", ", mat.dim(), ", ", vec.dim());
  // SymInts: a dynamic dim is compared by its range (Note [Symbolic shapes]).
  const SymInt m = mat.sym_size(0);
  EMBER_CHECK(
      mat.sym_size(1) == vec.sym_size(0) && (m == self.sym_numel() || self.sym_numel() == 1),
      "[addmv] size mismatch, got input (", self.dim() == 0 ? 1 : self.sizes()[0], "), mat (",
      mat.sizes()[0], "x", mat.sizes()[1], "), vec (", vec.sizes()[0], ")");
  EMBER_CHECK(self.dtype() == mat.dtype() && mat.dtype() == vec.dtype(),
              "[addmv] addmv input tensors must have the same dtype, but got ",
              scalar_type_name(self.dtype()), ", ", scalar_type_name(mat.dtype()), ", and ",
              scalar_type_name(vec.dtype()));
  check_not_bool(mat, "addmv", "addmv_impl_cpu");
  Tensor c = unsqueeze(unsqueeze(expand(self, {m}), 1), 0);
  Tensor r = ops::batched_product("addmv", unsqueeze(mat, 0), unsqueeze(unsqueeze(vec, 1), 0), c,
                                  beta, alpha);
  return reshape(r, {m});
}

Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  check_defined(self, "baddbmm", "input");
  check_defined(batch1, "baddbmm", "batch1");
  check_defined(batch2, "baddbmm", "batch2");
  EMBER_CHECK(batch1.dim() == 3, "[baddbmm] batch1 must be a 3D tensor");
  EMBER_CHECK(batch2.dim() == 3, "[baddbmm] batch2 must be a 3D tensor");
  EMBER_CHECK(self.dtype() == batch1.dtype() && batch1.dtype() == batch2.dtype(),
              "[baddbmm] Input dtypes must be the same, got: input ", type_meta_name(self.dtype()),
              ", batch1: ", type_meta_name(batch1.dtype()),
              ", batch2: ", type_meta_name(batch2.dtype()));
  const std::vector<SymInt> s1 = batch1.sym_sizes(), s2 = batch2.sym_sizes();
  const SymInt bs = s1[0], m = s1[1], k = s1[2], n = s2[2];
  EMBER_CHECK(s2[0] == bs && s2[1] == k,
              "[baddbmm] Expected size for first two dimensions of batch2 tensor to be: [", bs,
              ", ", k, "] but got: [", batch2.sizes()[0], ", ", batch2.sizes()[1], "].");
  check_not_bool(batch1, "baddbmm", "baddbmm");
  Tensor c = expand_self(self, {bs, m, n}, "baddbmm");
  return ops::batched_product("baddbmm", batch1, batch2, c, beta, alpha);
}

Tensor Tensor::matmul(const Tensor& other) const { return ember::matmul(*this, other); }
Tensor Tensor::mm(const Tensor& mat2) const { return ember::mm(*this, mat2); }
Tensor Tensor::bmm(const Tensor& mat2) const { return ember::bmm(*this, mat2); }
Tensor Tensor::mv(const Tensor& vec) const { return ember::mv(*this, vec); }
Tensor Tensor::dot(const Tensor& other) const { return ember::dot(*this, other); }
Tensor Tensor::vdot(const Tensor& other) const { return ember::vdot(*this, other); }
Tensor Tensor::outer(const Tensor& vec2) const { return ember::outer(*this, vec2); }
Tensor Tensor::addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                     const Scalar& alpha) const {
  return ember::addmm(*this, mat1, mat2, beta, alpha);
}
Tensor Tensor::addmv(const Tensor& mat, const Tensor& vec, const Scalar& beta,
                     const Scalar& alpha) const {
  return ember::addmv(*this, mat, vec, beta, alpha);
}
Tensor Tensor::baddbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                       const Scalar& alpha) const {
  return ember::baddbmm(*this, batch1, batch2, beta, alpha);
}

}  // namespace ember
