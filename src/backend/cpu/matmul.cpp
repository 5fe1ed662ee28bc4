// The batched matrix product kernel: strides -> BLAS transposes/leading dimensions, batch loop,
// provider call per dtype (src/backend/cpu/gemm.h).
#include "primitives/matmul.h"

#include <sstream>

#include "backend/cpu/gemm.h"
#include "backend/cpu/parallel.h"
#include "ops/util.h"
#include "primitives/copy.h"

namespace ember {
namespace {

bool is_zero(const Scalar& s) { return s.isFloatingPoint() ? s.toDouble() == 0 : s.toLong() == 0; }

// One [B, rows, cols] operand as the provider reads each batch: X_i = data + i * batch_stride,
// stored row-major with leading dimension ld, or transposed (stored cols x rows) when trans.
struct MatrixArg {
  Tensor owner;  // keeps a contiguous copy alive when the strides did not fit BLAS
  const char* data = nullptr;
  int64_t batch_stride = 0;  // elements
  bool trans = false;
  int64_t ld = 1;
};

Tensor raw_view(const Tensor& t, std::vector<int64_t> sizes, std::vector<int64_t> strides) {
  return Tensor(std::make_shared<TensorImpl>(t.impl()->storage(), t.dtype(), std::move(sizes),
                                             std::move(strides), t.storage_offset()));
}

// BLAS needs unit stride along one matrix dim and ld >= max(1, that dim's extent); size-1 dims
// may have any stride. Otherwise the matrices are copied (once per distinct batch).
MatrixArg matrix_arg(const Tensor& t) {
  const int64_t rows = t.sizes()[1], cols = t.sizes()[2];
  const int64_t s0 = t.strides()[0], s1 = t.strides()[1], s2 = t.strides()[2];
  MatrixArg r;
  if ((s2 == 1 || cols == 1) && (rows == 1 || s1 >= std::max<int64_t>(1, cols))) {
    r.trans = false;
    r.ld = rows == 1 ? std::max<int64_t>(1, cols) : s1;
  } else if ((s1 == 1 || rows == 1) && (cols == 1 || s2 >= std::max<int64_t>(1, rows))) {
    r.trans = true;
    r.ld = cols == 1 ? std::max<int64_t>(1, rows) : s2;
  } else {
    // A broadcast batch (stride 0) stays broadcast: copy one matrix, not B of them.
    const int64_t nb = s0 == 0 ? 1 : t.sizes()[0];
    Tensor src = raw_view(t, {nb, rows, cols}, {s0, s1, s2});
    r.owner = ops::empty_tensor({nb, rows, cols}, t.dtype(), "matmul");
    std::vector<Tensor> out{r.owner};
    Copy().eval_cpu({src}, out);
    r.data = static_cast<const char*>(r.owner.data_ptr());
    r.batch_stride = nb == 1 ? 0 : rows * cols;
    r.ld = std::max<int64_t>(1, cols);
    return r;
  }
  r.data = static_cast<const char*>(t.data_ptr());
  r.batch_stride = s0;
  return r;
}

// out = beta * out elementwise (the k == 0 case of addmm/baddbmm), in the op's arithmetic.
void scale_output(Tensor& out, const Scalar& beta) {
  visit_dtype(out.dtype(), "matmul", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    T* p = out.data_ptr<T>();
    const int64_t n = out.numel();
    if constexpr (std::is_same_v<T, bool>) {
      const bool b = beta.toBool();
      for (int64_t i = 0; i < n; ++i) p[i] = p[i] && b;
    } else if constexpr (std::is_integral_v<T>) {
      using U = cpu::WrapT<T>;
      const U b = static_cast<U>(beta.to<T>());
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(b * static_cast<U>(p[i]));
    } else {
      using Op = std::conditional_t<std::is_same_v<T, double>, double, float>;
      const Op b = beta.to<Op>();
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(b * static_cast<Op>(p[i]));
    }
  });
}

// Tiny products (the bulk of many-small-batch bmm/einsum calls) cost less as a plain loop than
// as a provider call; the sum runs in the provider's arithmetic type S, as PyTorch's small path.
constexpr int64_t kTinyProduct = 512;

template <typename T, typename S>
void gemm_tiny(bool ta, bool tb, int64_t m, int64_t n, int64_t k, S alpha, const T* a, int64_t lda,
               const T* b, int64_t ldb, S beta, T* c, int64_t ldc) {
  const int64_t a_rs = ta ? 1 : lda, a_cs = ta ? lda : 1;
  const int64_t b_rs = tb ? 1 : ldb, b_cs = tb ? ldb : 1;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      S acc = 0;
      for (int64_t p = 0; p < k; ++p) {
        acc += static_cast<S>(a[i * a_rs + p * a_cs]) * static_cast<S>(b[p * b_rs + j * b_cs]);
      }
      S r = alpha * acc;
      if (beta != S(0)) r += beta * static_cast<S>(c[i * ldc + j]);
      c[i * ldc + j] = static_cast<T>(r);
    }
  }
}

template <typename T>
void run_batches(const MatrixArg& a, const MatrixArg& b, Tensor& out, int64_t m, int64_t n,
                 int64_t k, const Scalar& alpha_s, const Scalar& beta_s, bool read_c) {
  // Scalars in the provider's arithmetic type: float for the 16-bit floats.
  using S = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;
  const S alpha = alpha_s.to<S>();
  const S beta = read_c ? beta_s.to<S>() : S(0);
  const T* pa = reinterpret_cast<const T*>(a.data);
  const T* pb = reinterpret_cast<const T*>(b.data);
  T* pc = out.data_ptr<T>();
  const int64_t batches = out.sizes()[0];
  const int64_t work = m * n * k;
  const bool tiny = std::is_floating_point_v<S> && work < kTinyProduct;
  auto one = [&](int64_t i) {
    if constexpr (std::is_floating_point_v<S>) {
      if (tiny) {
        gemm_tiny<T, S>(a.trans, b.trans, m, n, k, alpha, pa + i * a.batch_stride, a.ld,
                        pb + i * b.batch_stride, b.ld, beta, pc + i * m * n, n);
        return;
      }
    }
    cpu::gemm(a.trans, b.trans, m, n, k, alpha, pa + i * a.batch_stride, a.ld,
              pb + i * b.batch_stride, b.ld, beta, pc + i * m * n, n);
  };
  // Many small products: one thread per batch slice (the providers then run single-threaded
  // inside the parallel region). Large ones: batches in turn, threads inside the provider.
  constexpr int64_t kSmallProduct = int64_t{1} << 18;
  if (batches > 1 && work < kSmallProduct) {
    const int64_t grain = std::max<int64_t>(1, cpu::kGrainSize / std::max<int64_t>(1, work));
    cpu::parallel_for(0, batches, grain, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) one(i);
    });
  } else {
    for (int64_t i = 0; i < batches; ++i) one(i);
  }
}

}  // namespace

void Matmul::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& a = inputs.at(0);
  const Tensor& b = inputs.at(1);
  Tensor& out = outputs.at(0);
  EMBER_INTERNAL_ASSERT(a.dim() == 3 && b.dim() == 3 && out.dim() == 3 && out.is_contiguous() &&
                        a.dtype() == b.dtype() && a.dtype() == out.dtype());
  const int64_t m = a.sizes()[1], k = a.sizes()[2], n = b.sizes()[2];
  if (out.numel() == 0) return;
  const bool read_c = inputs.size() > 2 && inputs[2].defined() && !is_zero(p_.beta);
  if (read_c) Copy().eval_cpu({inputs[2]}, outputs);  // C starts as self, broadcast
  if (k == 0) {
    if (read_c) {
      scale_output(out, p_.beta);
    } else {
      Fill::into(out, 0).eval_cpu({}, outputs);
    }
    return;
  }
  const MatrixArg ma = matrix_arg(a), mb = matrix_arg(b);
  visit_dtype(out.dtype(), name(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    run_batches<T>(ma, mb, out, m, n, k, p_.alpha, p_.beta, read_c);
  });
}

}  // namespace ember
