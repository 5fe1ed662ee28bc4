// Results independent of the thread count (issue 16, item 4; Note [Deterministic reduction] in
// src/backend/cpu/reduce_engine.h): every op here runs at 1, 2 and 3 threads and must give the
// same bits. Sizes are odd and large enough to take the parallel paths (chunked full, inner and
// outer reductions), and float64 shows any change in the order of additions.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "cli/checkpoint.h"
#include "cli/train.h"
#include "data/data_test_util.h"
#include "ember/ember.h"

namespace ember {
namespace {

// Restores the thread count when a test ends.
struct ThreadCountGuard {
  int saved = get_num_threads();
  ~ThreadCountGuard() { set_num_threads(saved); }
};

bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.sizes() != b.sizes()) return false;
  const Tensor ca = a.contiguous(), cb = b.contiguous();
  return std::memcmp(ca.data_ptr(), cb.data_ptr(), ca.numel() * ca.element_size()) == 0;
}

// Runs f at 1 thread, then at 2 and 3, and expects every output bit-identical to the first run.
void expect_thread_independent(const std::string& what,
                               const std::function<std::vector<Tensor>()>& f) {
  ThreadCountGuard guard;
  set_num_threads(1);
  const std::vector<Tensor> ref = f();
  ASSERT_FALSE(ref.empty()) << what;
  for (int n : {2, 3}) {
    set_num_threads(n);
    const std::vector<Tensor> got = f();
    ASSERT_EQ(got.size(), ref.size()) << what;
    for (size_t k = 0; k < ref.size(); ++k) {
      EXPECT_TRUE(same_bits(ref[k], got[k]))
          << what << ": output " << k << " differs at " << n << " threads";
    }
  }
}

Tensor sample(const std::vector<int64_t>& sizes, ScalarType dt, uint64_t seed) {
  manual_seed(seed);
  // A mean away from zero and values of mixed magnitude: the order of additions shows.
  return (randn(sizes, kFloat64) * 3 + 0.5).to(dt);
}

struct Case {
  std::vector<int64_t> sizes;
  std::vector<int64_t> dims;  // empty: over all
  const char* name;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {{1000003}, {}, "all of 1000003"},
      {{7, 200003}, {1}, "inner of [7, 200003]"},
      {{1001, 1003}, {1}, "inner of [1001, 1003]"},
      {{100003, 5}, {0}, "outer of [100003, 5]"},
      {{30001, 37}, {0}, "outer of [30001, 37]"},
      {{13, 5001, 17}, {1}, "middle of [13, 5001, 17]"},
      {{301, 3, 997}, {0, 2}, "outer and inner of [301, 3, 997]"},
  };
  return c;
}

std::string label(const Case& c, ScalarType dt, const char* op) {
  return std::string(op) + " " + c.name + " " + dtype_name(dt);
}

TEST(ThreadDeterminism, SumMeanNorm) {
  for (ScalarType dt : {kFloat32, kFloat64, kBFloat16}) {
    for (const Case& c : cases()) {
      const Tensor x = sample(c.sizes, dt, 1);
      const IntList d(c.dims);
      expect_thread_independent(label(c, dt, "sum/mean/nansum"), [&] {
        if (c.dims.empty()) return std::vector<Tensor>{x.sum(), x.mean(), nansum(x)};
        return std::vector<Tensor>{x.sum(d), x.mean(d), nansum(x, d)};
      });
      expect_thread_independent(label(c, dt, "norm"), [&] {
        if (c.dims.empty()) return std::vector<Tensor>{x.norm(), x.norm(1), x.norm(3)};
        return std::vector<Tensor>{x.norm(2, d), x.norm(1, d), x.norm(3, d)};
      });
    }
  }
}

TEST(ThreadDeterminism, VarStdLogSumExp) {
  for (ScalarType dt : {kFloat32, kFloat64, kBFloat16}) {
    for (const Case& c : cases()) {
      const Tensor x = sample(c.sizes, dt, 2);
      std::vector<int64_t> dims = c.dims;
      if (dims.empty()) {
        for (int64_t k = 0; k < x.dim(); ++k) dims.push_back(k);
      }
      const IntList d(dims);
      expect_thread_independent(label(c, dt, "var/std/var_mean/logsumexp"), [&] {
        auto [v, m] = var_mean(x, d);
        return std::vector<Tensor>{x.var(d), x.std(d), v, m, logsumexp(x, d)};
      });
    }
  }
}

TEST(ThreadDeterminism, IntegerAndMinMax) {
  manual_seed(3);
  const Tensor i = randint(-1000, 1000, {100003, 7}, kInt32);
  const Tensor f = sample({100003, 7}, kFloat32, 3);
  expect_thread_independent("int32 sums and float min/max", [&] {
    return std::vector<Tensor>{i.sum(),
                               i.sum({0}),
                               i.prod(1),
                               f.amax(),
                               f.amin({0}),
                               f.argmax(),
                               std::get<1>(f.max(0)),
                               f.cumsum(0),
                               i.cumsum(0)};
  });
}

TEST(ThreadDeterminism, TrainingOps) {
  manual_seed(4);
  // Linear's backward: the bias gradient is a sum over the batch (an outer reduction). The
  // weight gradient is a BLAS GEMM with the batch as its inner dimension, which OpenBLAS splits
  // by the thread count (not Ember's to fix here; see the branch report).
  const Tensor x = randn({20001, 9}, kFloat64);
  const Tensor w = randn({5, 9}, kFloat64);
  const Tensor b = randn({5}, kFloat64);
  const Tensor g = randn({20001, 5}, kFloat64);
  expect_thread_independent("linear backward", [&] {
    Tensor xw = x.detach().requires_grad_(true), ww = w.detach().requires_grad_(true);
    Tensor bw = b.detach().requires_grad_(true);
    Tensor y = nn::functional::linear(xw, ww, bw);
    y.backward(g);
    return std::vector<Tensor>{bw.grad(), xw.grad()};
  });
  // Embedding's backward and index_add: many repeated indices add into few rows.
  const Tensor idx = randint(0, 50, {100003}, kInt64);
  const Tensor table = randn({50, 16}, kFloat32);
  const Tensor gy = randn({100003, 16}, kFloat32);
  expect_thread_independent("embedding backward", [&] {
    Tensor t = table.detach().requires_grad_(true);
    nn::functional::embedding(idx, t).backward(gy);
    return std::vector<Tensor>{t.grad()};
  });
  expect_thread_independent("index_add", [&] {
    return std::vector<Tensor>{zeros({50, 16}).index_add(0, idx, gy)};
  });
  const Tensor logits = randn({1003, 1001}, kFloat32);
  expect_thread_independent("softmax, log_softmax and their sums", [&] {
    Tensor s = logits.softmax(1), l = logits.log_softmax(0);
    return std::vector<Tensor>{s, l, s.sum(), l.sum({0})};
  });
}

// Note [GEMM threads]: float32 and float64 products split C's rows (or columns, or for narrow
// products k in fixed chunks) themselves, each piece one single-threaded oneDNN or OpenBLAS call,
// so every element is the same sums at any thread count. Left to thread a call itself, oneDNN
// split k for linear's 1024 -> 256 shape (B transposed) and for dot products, OpenBLAS split k
// for dot products and matrix-vector products, and results changed with the threads.
TEST(ThreadDeterminism, Gemm) {
  for (ScalarType dt : {kFloat32, kFloat64}) {
    SCOPED_TRACE(dtype_name(dt));
    manual_seed(5);
    const auto rand = [dt](std::vector<int64_t> sizes) { return randn(sizes).to(dt); };
    const Tensor x = rand({2048, 1024}), w = rand({256, 1024}), bias = rand({256});
    const Tensor gy = rand({2048, 256});
    expect_thread_independent("linear 1024 -> 256, forward and backward", [&] {
      Tensor xw = x.detach().requires_grad_(true), ww = w.detach().requires_grad_(true);
      Tensor y = nn::functional::linear(xw, ww, bias);
      y.backward(gy);
      return std::vector<Tensor>{y.detach(), xw.grad(), ww.grad()};
    });
    // Rows and columns that are not multiples of the blocks; few rows (a split by columns); a
    // batch of products; k large against m and n.
    const Tensor a = rand({1001, 517}), b = rand({517, 263}), c = rand({20, 3001});
    const Tensor d = rand({3001, 700}), e = rand({3, 70, 4001}), f = rand({3, 4001, 40});
    expect_thread_independent("matmul shapes", [&] {
      return std::vector<Tensor>{a.mm(b), a.t().mm(a), c.mm(d), e.bmm(f), c.mm(c.t())};
    });
    // Too narrow to split C: k splits in fixed chunks (one chunk: one single-threaded call). A
    // long dot product changed with the thread count before.
    const Tensor u = rand({1000003}), v = rand({1000003}), s = rand({100003});
    const Tensor na = rand({5, 300007}), nb = rand({300007, 3}), h = rand({5}), nv = rand({300007});
    expect_thread_independent("narrow products", [&] {
      return std::vector<Tensor>{u.dot(v), s.dot(s), na.mm(nb), na.t().mv(h), na.mv(nv)};
    });
  }
}

// Elementwise kernels compute a run's whole vectors with Vec<T> and its last few elements with the
// scalar formula, which may round differently (silu's vector exp is not std::exp). Runs split
// among threads start at the same multiples of the vector width whatever the thread count, so each
// element takes the same path at 1, 2 and 3 threads (rows that are not a multiple of it included).
TEST(ThreadDeterminism, ElementwiseVectorAndScalarPaths) {
  for (const std::vector<int64_t>& sizes :
       std::vector<std::vector<int64_t>>{{1000003}, {7, 200003}, {1001, 1003}}) {
    for (ScalarType dt : {kFloat32, kFloat64}) {
      std::string shape;
      for (int64_t d : sizes) shape.append(shape.empty() ? "" : "x").append(std::to_string(d));
      shape.append(" ").append(dtype_name(dt));
      const Tensor x = sample(sizes, dt, 5), y = sample(sizes, dt, 6);
      expect_thread_independent("unary and binary " + shape, [&] {
        namespace F = nn::functional;
        return std::vector<Tensor>{F::silu(x), F::gelu(x), x.sigmoid(), x.exp(),
                                   x.tanh(),   x * y + 1,  x.pow(3)};
      });
      const Tensor g = sample(sizes, dt, 7);
      expect_thread_independent("activation backward " + shape, [&] {
        Tensor a = x.detach().requires_grad_(true);
        namespace F = nn::functional;
        (F::silu(a) + F::gelu(a) + a.sigmoid()).backward(g);
        return std::vector<Tensor>{a.grad()};
      });
    }
  }
}

// The end-to-end claim: `ember train` gives the same model at 1 and 2 threads. A model
// big enough that its ops split among threads, a few steps.
TEST(ThreadDeterminism, TrainIsBitIdenticalAtOneAndTwoThreads) {
  test::TempDir dir;
  const std::string text = dir.file("a.txt");
  {
    std::ofstream f(text);
    for (int i = 0; i < 200; ++i)
      f << "It is a truth universally acknowledged, that a single man. ";
  }
  ThreadCountGuard guard;
  auto run = [&](int threads) {
    cli::TrainRequest r;
    cli::TrainConfig& c = r.config;
    c.model = "gpt";
    c.data = text;
    c.out = dir.file("t" + std::to_string(threads));
    c.steps = 4;
    c.batch_size = 16;
    c.context = 64;
    c.layers = 1;
    c.heads = 2;
    c.dim = 64;
    c.eval_every = 1000;
    c.save_every = 1000;
    c.eval_windows = 8;
    c.threads = threads;
    r.quiet = true;
    cli::train(r);
    return cli::read_checkpoint(c.out);
  };
  const cli::Checkpoint one = run(1), two = run(2);
  ASSERT_EQ(one.model.size(), two.model.size());
  for (const auto& item : one.model) {
    ASSERT_TRUE(two.model.contains(item.key())) << item.key();
    EXPECT_TRUE(same_bits(item.value(), two.model[item.key()])) << item.key() << " differs";
  }
}

}  // namespace
}  // namespace ember
