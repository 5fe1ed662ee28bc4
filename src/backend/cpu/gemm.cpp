// GEMM providers (Note [GEMM providers] in gemm.h).
#include "backend/cpu/gemm.h"

#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>

#include <atomic>
#include <climits>
#include <oneapi/dnnl/dnnl.hpp>
#include <type_traits>
#include <vector>

#include "backend/cpu/parallel.h"
#include "ember/core/error.h"

namespace ember::cpu {
namespace {

std::atomic<SgemmProvider> g_sgemm_provider{SgemmProvider::Auto};
// Set once oneDNN has failed, so that later calls go straight to OpenBLAS.
std::atomic<bool> g_onednn_broken{false};

// OpenBLAS takes 32-bit sizes in Debian's build.
void check_blas_int(int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc) {
  for (int64_t v : {m, n, k, lda, ldb, ldc}) {
    EMBER_CHECK(v <= INT_MAX, "[gemm] matrix dimension ", v,
                " exceeds the 32-bit range of the BLAS library");
  }
}

// Calls cblas_sgemm or cblas_dgemm (row-major) after checking the sizes fit BLAS's int.
template <typename T, typename Cblas>
void openblas_gemm(Cblas fn, bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
                   int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  check_blas_int(m, n, k, lda, ldb, ldc);
  fn(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
     static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a, static_cast<int>(lda),
     b, static_cast<int>(ldb), beta, c, static_cast<int>(ldc));
}

// Copies op(X) (rows x cols, X row-major with leading dimension ld, transposed when t) into a
// dense row-major float buffer.
template <typename T>
void to_float(bool t, int64_t rows, int64_t cols, const T* x, int64_t ld, float* out) {
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      out[i * cols + j] = static_cast<float>(t ? x[j * ld + i] : x[i * ld + j]);
    }
  }
}

// 16-bit floats: widen, multiply in float32, round once into C.
template <typename T>
void gemm_16bit(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const T* a,
                int64_t lda, const T* b, int64_t ldb, float beta, T* c, int64_t ldc) {
  std::vector<float> fa(m * k), fb(k * n), fc(m * n);
  to_float(ta, m, k, a, lda, fa.data());
  to_float(tb, k, n, b, ldb, fb.data());
  if (beta != 0.0f) to_float(false, m, n, c, ldc, fc.data());
  gemm(false, false, m, n, k, alpha, fa.data(), k, fb.data(), n, beta, fc.data(), n);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = T(fc[i * n + j]);
  }
}

template <typename T>
void gemm_int(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda,
              const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  // Element strides of op(A) and op(B).
  const int64_t a_rs = ta ? 1 : lda, a_cs = ta ? lda : 1;
  const int64_t b_rs = tb ? 1 : ldb, b_cs = tb ? ldb : 1;
  constexpr int64_t kBlockN = 256;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n * k));
  parallel_for(0, m, grain, [&](int64_t i0, int64_t i1) {
    if constexpr (std::is_same_v<T, bool>) {
      std::vector<uint8_t> acc(std::min(n, kBlockN));
      for (int64_t i = i0; i < i1; ++i) {
        for (int64_t j0 = 0; j0 < n; j0 += kBlockN) {
          const int64_t nb = std::min(kBlockN, n - j0);
          std::fill(acc.begin(), acc.begin() + nb, uint8_t{0});
          for (int64_t p = 0; p < k; ++p) {
            if (!a[i * a_rs + p * a_cs]) continue;
            const bool* brow = b + p * b_rs + j0 * b_cs;
            for (int64_t j = 0; j < nb; ++j) acc[j] |= static_cast<uint8_t>(brow[j * b_cs]);
          }
          bool* crow = c + i * ldc + j0;
          for (int64_t j = 0; j < nb; ++j) {
            crow[j] = (alpha && acc[j]) || (beta && crow[j]);
          }
        }
      }
    } else {
      using U = WrapT<T>;
      const U ua = static_cast<U>(alpha), ub = static_cast<U>(beta);
      std::vector<U> acc(std::min(n, kBlockN));
      for (int64_t i = i0; i < i1; ++i) {
        for (int64_t j0 = 0; j0 < n; j0 += kBlockN) {
          const int64_t nb = std::min(kBlockN, n - j0);
          std::fill(acc.begin(), acc.begin() + nb, U{0});
          for (int64_t p = 0; p < k; ++p) {
            const U av = static_cast<U>(a[i * a_rs + p * a_cs]);
            const T* brow = b + p * b_rs + j0 * b_cs;
            if (b_cs == 1) {
              for (int64_t j = 0; j < nb; ++j) acc[j] += av * static_cast<U>(brow[j]);
            } else {
              for (int64_t j = 0; j < nb; ++j) acc[j] += av * static_cast<U>(brow[j * b_cs]);
            }
          }
          T* crow = c + i * ldc + j0;
          for (int64_t j = 0; j < nb; ++j) {
            U r = ua * acc[j];
            if (beta != 0) r += ub * static_cast<U>(crow[j]);
            crow[j] = static_cast<T>(r);
          }
        }
      }
    }
  });
}

// bfloat16 where the CPU multiplies it natively (AVX-512 BF16; oneDNN also takes AMX where
// present): oneDNN's matmul on the bfloat16 operands as they are, accumulating in float and
// rounding once, as the float32 path computes. False where it does not apply (alpha != 1,
// beta != 0, no such CPU, OpenBLAS forced, oneDNN declines): the caller converts instead.
bool onednn_bf16_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
                      const BFloat16* a, int64_t lda, const BFloat16* b, int64_t ldb, float beta,
                      BFloat16* c, int64_t ldc) {
  static const bool native_bf16 = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512bf16") != 0;
  }();
  if (!native_bf16 || alpha != 1.0f || beta != 0.0f ||
      g_sgemm_provider.load(std::memory_order_relaxed) == SgemmProvider::OpenBLAS ||
      g_onednn_broken.load(std::memory_order_relaxed))
    return false;
  using dnnl::memory;
  try {
    static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    const auto bf16 = memory::data_type::bf16;
    const memory::desc ad({m, k}, bf16, ta ? memory::dims{1, lda} : memory::dims{lda, 1});
    const memory::desc bd({k, n}, bf16, tb ? memory::dims{1, ldb} : memory::dims{ldb, 1});
    const memory::desc cd({m, n}, bf16, memory::dims{ldc, 1});
    const dnnl::matmul mm(dnnl::matmul::primitive_desc(dnnl::matmul::desc(ad, bd, cd), engine));
    dnnl::stream stream(engine);
    mm.execute(stream, {{DNNL_ARG_SRC, memory(ad, engine, const_cast<BFloat16*>(a))},
                        {DNNL_ARG_WEIGHTS, memory(bd, engine, const_cast<BFloat16*>(b))},
                        {DNNL_ARG_DST, memory(cd, engine, c)}});
    stream.wait();
    return true;
  } catch (const dnnl::error&) {
    return false;
  }
}

}  // namespace

void set_sgemm_provider(SgemmProvider p) { g_sgemm_provider.store(p); }
SgemmProvider sgemm_provider() { return g_sgemm_provider.load(); }

namespace {

// One float32 product, or one block of rows or columns of it, by oneDNN (OpenBLAS as gemm() says).
void sgemm_block(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                 int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  const SgemmProvider p = g_sgemm_provider.load(std::memory_order_relaxed);
  if (p != SgemmProvider::OpenBLAS && !g_onednn_broken.load(std::memory_order_relaxed)) {
    dnnl_status_t st =
        dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    if (st == dnnl_success) return;
    EMBER_CHECK(p != SgemmProvider::OneDNN, "[gemm] dnnl_sgemm failed with status ",
                static_cast<int>(st));
    // Auto: remember the failure and let OpenBLAS take over.
    g_onednn_broken.store(true);
  }
  openblas_gemm(cblas_sgemm, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// One float64 product, or one block of it, by OpenBLAS.
void dgemm_block(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                 int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  openblas_gemm(cblas_dgemm, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// Note [GEMM threads]: left to thread a call itself, oneDNN splits the inner dimension k among
// the threads for some shapes (2048 x 1024 x 256 with B transposed, linear's shape for a 1024 ->
// 256 layer; every dot product), and OpenBLAS for dot and matrix-vector products: results then
// depend on the thread count, and that linear ran at 65-70% of the speed of the split below on 2
// vCPUs. So Ember splits the work itself:
//  - C's rows among the threads in blocks of kBlock (its columns where the rows are too few),
//    each block one single-threaded library call (a call inside a parallel region runs on its
//    thread alone, in oneDNN and in OpenMP-built OpenBLAS);
//  - a product too narrow for that (dot, a few columns of mv) splits k into chunks of kChunkK,
//    fixed by k alone: each chunk's product goes single-threaded into its own partial C, and the
//    partials are added in chunk order; with one chunk, one call on this thread alone.
// Every element of C is then the same sums in the same order whatever the thread count
// (ThreadDeterminism.Gemm).
template <typename T, typename Block>
void split_gemm(Block block, bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
                int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  constexpr int64_t kBlock = 16, kChunkK = 65536;
  const bool by_rows = m >= 2 * kBlock, by_cols = !by_rows && n >= 2 * kBlock;
  if (omp_in_parallel() || omp_get_max_threads() <= 1) {
    if (by_rows || by_cols || k < 2 * kChunkK) {
      return block(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    }
  }
  if (by_rows || by_cols) {
    const int64_t extent = by_rows ? m : n, blocks = (extent + kBlock - 1) / kBlock;
    parallel_for(0, blocks, 1, [&](int64_t b0, int64_t b1) {
      const int64_t i0 = b0 * kBlock, i1 = std::min(extent, b1 * kBlock);
      if (by_rows) {  // rows i0..i1 of op(A) and C
        block(ta, tb, i1 - i0, n, k, alpha, a + (ta ? i0 : i0 * lda), lda, b, ldb, beta,
              c + i0 * ldc, ldc);
      } else {  // columns i0..i1 of op(B) and C
        block(ta, tb, m, i1 - i0, k, alpha, a, lda, b + (tb ? i0 * ldb : i0), ldb, beta, c + i0,
              ldc);
      }
    });
    return;
  }
  if (k < 2 * kChunkK) {  // one chunk: one call, kept on this thread
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    struct Restore {
      int threads;
      ~Restore() { omp_set_num_threads(threads); }
    } restore{threads};
    return block(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  const int64_t chunks = (k + kChunkK - 1) / kChunkK, mn = m * n;
  std::vector<T> partial(static_cast<size_t>(chunks * mn));
  parallel_for(0, chunks, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t q = c0; q < c1; ++q) {
      const int64_t k0 = q * kChunkK, kc = std::min(kChunkK, k - k0);
      block(ta, tb, m, n, kc, T(1), a + (ta ? k0 * lda : k0), lda, b + (tb ? k0 : k0 * ldb), ldb,
            T(0), partial.data() + q * mn, n);
    }
  });
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      T s = 0;
      for (int64_t q = 0; q < chunks; ++q) s += partial[q * mn + i * n + j];
      T& out = c[i * ldc + j];
      out = beta == T(0) ? alpha * s : alpha * s + beta * out;
    }
  }
}

}  // namespace

void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  split_gemm(sgemm_block, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
          int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  split_gemm(dgemm_block, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const Half* a,
          int64_t lda, const Half* b, int64_t ldb, float beta, Half* c, int64_t ldc) {
  gemm_16bit(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const BFloat16* a,
          int64_t lda, const BFloat16* b, int64_t ldb, float beta, BFloat16* c, int64_t ldc) {
  if (onednn_bf16_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)) return;
  gemm_16bit(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

#define EMBER_DEFINE_INT_GEMM(T)                                                                 \
  void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, \
            const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {                                \
    gemm_int<T>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                           \
  }
EMBER_DEFINE_INT_GEMM(bool)
EMBER_DEFINE_INT_GEMM(uint8_t)
EMBER_DEFINE_INT_GEMM(int8_t)
EMBER_DEFINE_INT_GEMM(int16_t)
EMBER_DEFINE_INT_GEMM(int32_t)
EMBER_DEFINE_INT_GEMM(int64_t)
#undef EMBER_DEFINE_INT_GEMM

}  // namespace ember::cpu
