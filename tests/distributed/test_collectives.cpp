// Every collective on the gloo backend, world sizes 1 to 4, against values computed locally.
// Rank r's tensors hold known functions of (r, i), so each rank can work out every result.
#include "distributed/dist_test_util.h"

using namespace ember;
using namespace ember::testing_dist;
using dist::ReduceOp;

namespace {

const ReduceOp kOps[] = {ReduceOp::SUM, ReduceOp::AVG,  ReduceOp::PRODUCT, ReduceOp::MIN,
                         ReduceOp::MAX, ReduceOp::BAND, ReduceOp::BOR,     ReduceOp::BXOR};

// Small integers, exact in every dtype whatever the op (products use 1 and 2 only).
double input(ReduceOp op, ScalarType dtype, int64_t r, int64_t i) {
  if (dtype == kBool) return ((r * 5 + i * 3) % 7) % 2;
  if (op == ReduceOp::PRODUCT) return (r + i) % 2 + 1;
  return (r * 5 + i * 3) % 7 + 1;
}

double fold(ReduceOp op, ScalarType dtype, int64_t world, int64_t i) {
  auto v = [&](int64_t r) { return input(op, dtype, r, i); };
  double acc = v(0);
  for (int64_t r = 1; r < world; ++r) {
    const double x = v(r);
    const auto a = static_cast<int64_t>(acc), b = static_cast<int64_t>(x);
    switch (op) {
      case ReduceOp::SUM:
      case ReduceOp::AVG:
        acc += x;
        break;
      case ReduceOp::PRODUCT:
        acc *= x;
        break;
      case ReduceOp::MIN:
        acc = std::min(acc, x);
        break;
      case ReduceOp::MAX:
        acc = std::max(acc, x);
        break;
      case ReduceOp::BAND:
        acc = static_cast<double>(a & b);
        break;
      case ReduceOp::BOR:
        acc = static_cast<double>(a | b);
        break;
      case ReduceOp::BXOR:
        acc = static_cast<double>(a ^ b);
        break;
    }
  }
  if (dtype == kBool) return acc != 0;  // bool SUM is "any", PRODUCT "all"
  if (op == ReduceOp::AVG) return is_floating_point(dtype) ? acc / world : std::trunc(acc / world);
  return acc;
}

bool op_allowed(ReduceOp op, ScalarType dtype) {
  const bool bitwise = op == ReduceOp::BAND || op == ReduceOp::BOR || op == ReduceOp::BXOR;
  if (bitwise) return !is_floating_point(dtype);
  return !(op == ReduceOp::AVG && dtype == kBool);
}

class Collectives : public ::testing::TestWithParam<int> {};

// 11 elements ride in the agreement's records, each rank reducing every rank's copy itself (Note
// [Records] in collectives.cpp); 66000 (past any record, 64 KiB at most) go through the engine's
// own all-reduce: SUM of every dtype, and every op of float32 and int32.
TEST_P(Collectives, AllReduceEveryOpAndDtype) {
  const int W = GetParam();
  run_world(W, [W](int r) {
    for (int64_t n : {11, 66000})
      for (ScalarType dtype : all_dtypes())
        for (ReduceOp op : kOps) {
          if (n > 11 && op != ReduceOp::SUM && dtype != kFloat32 && dtype != kInt32) continue;
          const std::string what =
              std::string("all_reduce ") + dist::reduce_op_name(op) + " of " + std::to_string(n);
          if (!op_allowed(op, dtype)) {
            DIST_CHILD_CHECK(([&] {
              try {
                dist::all_reduce(make(dtype, n, [](int64_t) { return 1; }), op);
              } catch (const TypeError&) {
                return true;
              }
              return false;
            }()));
            continue;
          }
          Tensor t = make(dtype, n, [&](int64_t i) { return input(op, dtype, r, i); });
          dist::all_reduce(t, op);
          std::vector<double> want;
          for (int64_t i = 0; i < n; ++i) want.push_back(fold(op, dtype, W, i));
          DIST_CHILD_CHECK(holds(t, want, what));
        }
    // A non-contiguous tensor (a transposed view) is reduced in place through a copy.
    Tensor base = make(kFloat32, 12, [&](int64_t i) { return r * 100 + i; });
    Tensor view = base.view({3, 4}).t();
    dist::all_reduce(view, ReduceOp::MAX);
    std::vector<double> want;
    for (int64_t i = 0; i < 12; ++i) want.push_back((W - 1) * 100 + i);
    DIST_CHILD_CHECK(holds(base, want, "all_reduce of a transposed view"));
    return 0;
  });
}

TEST_P(Collectives, BroadcastAndReduce) {
  const int W = GetParam();
  run_world(W, [W](int r) {
    for (ScalarType dtype : {kFloat32, kBFloat16, kInt64, kBool, kUInt8})
      for (int src = 0; src < W; ++src) {
        Tensor t =
            make(dtype, 7, [&](int64_t i) { return (r * 3 + i) % 2 + (dtype == kBool ? 0 : r); });
        dist::broadcast(t, src);
        std::vector<double> want;
        for (int64_t i = 0; i < 7; ++i)
          want.push_back((src * 3 + i) % 2 + (dtype == kBool ? 0 : src));
        DIST_CHILD_CHECK(holds(t, want, "broadcast from " + std::to_string(src)));
      }
    // Past what rides in the root's record (Note [Records]): the engine's own broadcast.
    Tensor big = make(kFloat32, 66000, [&](int64_t i) { return r * 7 + i % 5; });
    dist::broadcast(big, W - 1);
    std::vector<double> want_big;
    for (int64_t i = 0; i < 66000; ++i) want_big.push_back((W - 1) * 7 + i % 5);
    DIST_CHILD_CHECK(holds(big, want_big, "broadcast of 66000"));
    // Non-contiguous: every other element of a longer tensor.
    Tensor base = make(kFloat64, 10, [&](int64_t i) { return r * 10 + i; });
    dist::broadcast(base.slice(0, 0, 10, 2), 0);
    std::vector<double> want;
    for (int64_t i = 0; i < 10; ++i) want.push_back(i % 2 == 0 ? i : r * 10 + i);
    DIST_CHILD_CHECK(holds(base, want, "broadcast into a strided view"));

    const int dst = W - 1;
    for (ScalarType dtype : {kFloat64, kInt32, kFloat16})
      for (ReduceOp op : {ReduceOp::SUM, ReduceOp::MAX, ReduceOp::AVG}) {
        Tensor t = make(dtype, 5, [&](int64_t i) { return input(op, dtype, r, i); });
        dist::reduce(t, dst, op);
        std::vector<double> mine, all;
        for (int64_t i = 0; i < 5; ++i) {
          mine.push_back(input(op, dtype, r, i));
          all.push_back(fold(op, dtype, W, i));
        }
        // Only dst receives the result; the other ranks' tensors are left as they were.
        DIST_CHILD_CHECK(holds(t, r == dst ? all : mine, "reduce"));
      }
    return 0;
  });
}

TEST_P(Collectives, AllGatherFamily) {
  const int W = GetParam();
  run_world(W, [W](int r) {
    for (ScalarType dtype : all_dtypes()) {
      auto val = [&](int64_t rank, int64_t i) -> double {
        return dtype == kBool ? (rank + i) % 2 : rank * 4 + i;
      };
      Tensor mine = make(dtype, 3, [&](int64_t i) { return val(r, i); });
      std::vector<Tensor> list;
      for (int k = 0; k < W; ++k) list.push_back(make(dtype, 3, [](int64_t) { return 0; }));
      dist::all_gather(list, mine);
      for (int k = 0; k < W; ++k)
        DIST_CHILD_CHECK(holds(list[k], {val(k, 0), val(k, 1), val(k, 2)}, "all_gather"));

      Tensor out = empty({W, 3}, TensorOptions().dtype(dtype));  // stacked
      dist::all_gather_into_tensor(out, mine);
      std::vector<double> want;
      for (int k = 0; k < W; ++k)
        for (int64_t i = 0; i < 3; ++i) want.push_back(val(k, i));
      DIST_CHILD_CHECK(holds(out.view({-1}), want, "all_gather_into_tensor"));
    }
    // An output that is a transposed view receives the same values in its own layout.
    Tensor store = zeros({3, W}, TensorOptions().dtype(kInt32));
    dist::all_gather_into_tensor(store.t(), make(kInt32, 3, [&](int64_t i) { return r * 4 + i; }));
    std::vector<double> want;
    for (int64_t i = 0; i < 3; ++i)
      for (int k = 0; k < W; ++k) want.push_back(k * 4 + i);
    DIST_CHILD_CHECK(holds(store.view({-1}), want, "all_gather_into_tensor into a view"));
    return 0;
  });
}

TEST_P(Collectives, ReduceScatterFamily) {
  const int W = GetParam();
  run_world(W, [W](int r) {
    constexpr int64_t n = 4;  // elements each rank ends up with
    for (ScalarType dtype : {kFloat32, kInt64, kBFloat16, kInt8})
      for (ReduceOp op : {ReduceOp::SUM, ReduceOp::MAX, ReduceOp::AVG, ReduceOp::PRODUCT}) {
        // Element j of the whole input is element j % n of block j / n.
        Tensor whole = make(dtype, n * W, [&](int64_t j) { return input(op, dtype, r, j); });
        std::vector<double> want;
        for (int64_t i = 0; i < n; ++i) want.push_back(fold(op, dtype, W, r * n + i));
        Tensor out = make(dtype, n, [](int64_t) { return 0; });
        dist::reduce_scatter_tensor(out, whole, op);
        DIST_CHILD_CHECK(holds(out, want, "reduce_scatter_tensor"));
        std::vector<Tensor> list;
        for (int k = 0; k < W; ++k) list.push_back(whole.slice(0, k * n, (k + 1) * n));
        Tensor out2 = make(dtype, n, [](int64_t) { return 0; });
        dist::reduce_scatter(out2, list, op);
        DIST_CHILD_CHECK(holds(out2, want, "reduce_scatter"));
        std::vector<double> input_kept;
        for (int64_t j = 0; j < n * W; ++j) input_kept.push_back(input(op, dtype, r, j));
        DIST_CHILD_CHECK(holds(whole, input_kept, "reduce_scatter leaves its input alone"));
      }
    return 0;
  });
}

TEST_P(Collectives, AllToAll) {
  const int W = GetParam();
  run_world(W, [W](int r) {
    // Even splits: row k of rank s's input goes to rank k / (rows per rank).
    constexpr int64_t per = 2, cols = 3;
    auto cell = [](int64_t src, int64_t row, int64_t col) { return src * 1000 + row * 10 + col; };
    Tensor in = make(kFloat32, W * per * cols, [&](int64_t j) {
                  return cell(r, j / cols, j % cols);
                }).view({W * per, cols});
    Tensor out = zeros({W * per, cols});
    dist::all_to_all_single(out, in);
    std::vector<double> want;
    for (int64_t s = 0; s < W; ++s)
      for (int64_t k = 0; k < per; ++k)
        for (int64_t c = 0; c < cols; ++c) want.push_back(cell(s, r * per + k, c));
    DIST_CHILD_CHECK(holds(out.view({-1}), want, "all_to_all_single (even)"));

    // Uneven splits, some empty: rank s sends (s + 2j) % 3 rows to rank j.
    auto rows = [](int64_t s, int64_t j) { return (s + 2 * j) % 3; };
    std::vector<int64_t> in_splits, out_splits;
    int64_t in_rows = 0, out_rows = 0;
    for (int64_t j = 0; j < W; ++j) {
      in_splits.push_back(rows(r, j));
      out_splits.push_back(rows(j, r));
      in_rows += rows(r, j);
      out_rows += rows(j, r);
    }
    Tensor uin = make(kInt64, in_rows * cols, [&](int64_t j) {
                   return cell(r, j / cols, j % cols);
                 }).view({in_rows, cols});
    Tensor uout = zeros({out_rows, cols}, TensorOptions().dtype(kInt64));
    dist::all_to_all_single(uout, uin, out_splits, in_splits);
    want.clear();
    for (int64_t s = 0; s < W; ++s) {
      int64_t first = 0;  // where rank s's rows for r start in its input
      for (int64_t j = 0; j < r; ++j) first += rows(s, j);
      for (int64_t k = 0; k < rows(s, r); ++k)
        for (int64_t c = 0; c < cols; ++c) want.push_back(cell(s, first + k, c));
    }
    DIST_CHILD_CHECK(holds(uout.view({-1}), want, "all_to_all_single (uneven)"));

    // Lists with a different size per peer, in bfloat16.
    std::vector<Tensor> ins, outs;
    for (int64_t j = 0; j < W; ++j) {
      ins.push_back(make(kBFloat16, (r + j) % 2 + 1, [&](int64_t i) { return r * 8 + j * 2 + i; }));
      outs.push_back(zeros({(j + r) % 2 + 1}, TensorOptions().dtype(kBFloat16)));
    }
    dist::all_to_all(outs, ins);
    for (int64_t j = 0; j < W; ++j) {
      std::vector<double> w;
      for (int64_t i = 0; i < (j + r) % 2 + 1; ++i) w.push_back(j * 8 + r * 2 + i);
      DIST_CHILD_CHECK(holds(outs[j], w, "all_to_all"));
    }
    return 0;
  });
}

TEST_P(Collectives, GatherScatterBarrier) {
  const int W = GetParam();
  run_world(W, [W](int r) {
    for (ScalarType dtype : {kFloat64, kInt16, kFloat16, kBool}) {
      auto val = [&](int64_t rank, int64_t i) -> double {
        return dtype == kBool ? (rank + i) % 2 : rank * 3 + i;
      };
      const int dst = 0;
      std::vector<Tensor> list;
      if (r == dst)
        for (int k = 0; k < W; ++k) list.push_back(make(dtype, 2, [](int64_t) { return 0; }));
      dist::gather(make(dtype, 2, [&](int64_t i) { return val(r, i); }), list, dst);
      for (int k = 0; k < static_cast<int>(list.size()); ++k)
        DIST_CHILD_CHECK(holds(list[k], {val(k, 0), val(k, 1)}, "gather"));

      const int src = W - 1;
      std::vector<Tensor> parts;
      if (r == src)
        for (int k = 0; k < W; ++k)
          parts.push_back(make(dtype, 2, [&](int64_t i) { return val(k, i); }));
      Tensor got = make(dtype, 2, [](int64_t) { return 0; });
      dist::scatter(got, parts, src);
      DIST_CHILD_CHECK(holds(got, {val(r, 0), val(r, 1)}, "scatter"));
    }
    for (int k = 0; k < 3; ++k) dist::barrier();
    return 0;
  });
}

INSTANTIATE_TEST_SUITE_P(WorldSizes, Collectives, ::testing::Range(1, 5),
                         [](const auto& info) { return "world" + std::to_string(info.param); });

}  // namespace
