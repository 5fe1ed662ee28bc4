// Eager kernels next to PyTorch (issue 16): normalisations, activations, cross_entropy,
// reductions, attention and GEMM, with the same inputs as bench/peers/ops_peer.py (which times
// the same case names in PyTorch). Backward cases time the backward alone: the forward graph is
// built once and autograd::grad runs with retain_graph. See Note [Side-by-side cases] in
// bench_common.h; scripts/bench.sh runs both and prints the ratios.
#include <cmath>

#include "bench_common.h"

namespace {

using bench::Body;
using bench::Case;
using bench::Outputs;
using bench::pattern;
using ember::Tensor;
namespace F = ember::nn::functional;

constexpr int64_t kRows = 4096, kCols = 1024;        // normalisations and cross_entropy
constexpr int64_t kElems = 16 * 1024 * 1024;         // elementwise
constexpr int64_t kRed = 4096;                       // reductions over [kRed, kRed]
const std::vector<int64_t> kAtt = {16, 4, 128, 64};  // attention: batch, heads, tokens, head dim

Tensor leaf(std::vector<int64_t> shape, uint64_t seed, double lo = -2.0, double hi = 2.0) {
  Tensor t = pattern(std::move(shape), seed, lo, hi);
  t.requires_grad_(true);
  return t;
}

// The backward of y alone, for an incoming gradient from the pattern.
Body grad_body(const Tensor& y, std::vector<Tensor> inputs, uint64_t seed) {
  std::vector<int64_t> shape(y.sizes().begin(), y.sizes().end());
  Tensor gy = pattern(shape, seed, -1.0, 1.0);
  return [y, inputs, gy] { return ember::autograd::grad({y}, inputs, {gy}, true); };
}

Tensor rms_norm(const Tensor& x, const Tensor& w) { return F::rms_norm(x, {kCols}, w); }
Tensor layer_norm(const Tensor& x, const Tensor& w, const Tensor& b) {
  return F::layer_norm(x, {kCols}, w, b);
}

void add_norm_cases(std::vector<Case>& cases) {
  using Unary = Tensor (*)(const Tensor&);
  static const Unary softmax = [](const Tensor& x) { return F::softmax(x, -1); };
  static const Unary log_softmax = [](const Tensor& x) { return F::log_softmax(x, -1); };
  for (auto [name, f] : {std::pair{"softmax", softmax}, std::pair{"log_softmax", log_softmax}}) {
    cases.push_back({std::string(name) + "_fwd", [f] {
                       Tensor x = pattern({kRows, kCols}, 1);
                       return Body([x, f] { return Outputs{f(x)}; });
                     }});
    cases.push_back({std::string(name) + "_bwd", [f] {
                       Tensor x = leaf({kRows, kCols}, 1);
                       return grad_body(f(x), {x}, 9);
                     }});
  }
  cases.push_back({"layer_norm_fwd", [] {
                     Tensor x = pattern({kRows, kCols}, 1), w = pattern({kCols}, 2, 0.5, 1.5),
                            b = pattern({kCols}, 3, -0.5, 0.5);
                     return Body([=] { return Outputs{layer_norm(x, w, b)}; });
                   }});
  cases.push_back({"layer_norm_bwd", [] {
                     Tensor x = leaf({kRows, kCols}, 1), w = leaf({kCols}, 2, 0.5, 1.5),
                            b = leaf({kCols}, 3, -0.5, 0.5);
                     return grad_body(layer_norm(x, w, b), {x, w, b}, 9);
                   }});
  cases.push_back({"rms_norm_fwd", [] {
                     Tensor x = pattern({kRows, kCols}, 1), w = pattern({kCols}, 2, 0.5, 1.5);
                     return Body([=] { return Outputs{rms_norm(x, w)}; });
                   }});
  cases.push_back({"rms_norm_bwd", [] {
                     Tensor x = leaf({kRows, kCols}, 1), w = leaf({kCols}, 2, 0.5, 1.5);
                     return grad_body(rms_norm(x, w), {x, w}, 9);
                   }});
}

void add_elementwise_cases(std::vector<Case>& cases) {
  using Unary = Tensor (*)(const Tensor&);
  static const Unary silu = [](const Tensor& x) { return F::silu(x); };
  static const Unary gelu = [](const Tensor& x) { return F::gelu(x); };
  static const Unary x_sigmoid_x = [](const Tensor& x) { return x * ember::sigmoid(x); };
  for (auto [name, f] : {std::pair{"silu", silu}, std::pair{"gelu", gelu}}) {
    cases.push_back({std::string(name) + "_fwd", [f] {
                       Tensor x = pattern({kElems}, 1, -6.0, 6.0);
                       return Body([x, f] { return Outputs{f(x)}; });
                     }});
    cases.push_back({std::string(name) + "_bwd", [f] {
                       Tensor x = leaf({kElems}, 1, -6.0, 6.0);
                       return grad_body(f(x), {x}, 9);
                     }});
  }
  cases.push_back({"x_sigmoid_x", [] {
                     Tensor x = pattern({kElems}, 1, -6.0, 6.0);
                     return Body([x] { return Outputs{x_sigmoid_x(x)}; });
                   }});
  cases.push_back({"cross_entropy_fwdbwd", [] {
                     Tensor x = leaf({kRows, kCols}, 1);
                     Tensor t = bench::pattern_classes(kRows, kCols, 2);
                     return Body([x, t] {
                       Tensor loss = F::cross_entropy(x, t);
                       Tensor g = ember::autograd::grad({loss}, {x})[0];
                       return Outputs{loss.detach(), g};
                     });
                   }});
}

void add_reduction_cases(std::vector<Case>& cases) {
  using Whole = Tensor (*)(const Tensor&);
  using Along = Tensor (*)(const Tensor&, int64_t);
  struct Op {
    const char* name;
    Whole whole;
    Along along;
  };
  static const Op ops[] = {
      {"sum", [](const Tensor& x) { return ember::sum(x); },
       [](const Tensor& x, int64_t d) { return ember::sum(x, {d}); }},
      {"mean", [](const Tensor& x) { return ember::mean(x); },
       [](const Tensor& x, int64_t d) { return ember::mean(x, {d}); }},
      {"max", [](const Tensor& x) { return ember::max(x); },
       [](const Tensor& x, int64_t d) { return ember::amax(x, {d}); }},
      {"var", [](const Tensor& x) { return ember::var(x); },
       [](const Tensor& x, int64_t d) { return ember::var(x, {d}); }},
  };
  for (const Op& op : ops) {
    for (auto [where, dim] : {std::pair{"all", int64_t{-1}}, std::pair{"last", int64_t{1}},
                              std::pair{"first", int64_t{0}}}) {
      cases.push_back({std::string(op.name) + "_" + where, [op, dim] {
                         // a mean away from 0, so that the sums do not cancel (as ops_peer.py)
                         Tensor x = bench::pattern_rows(kRed, kRed, 1, -1.0, 3.0);
                         return Body([op, dim, x] {
                           return Outputs{dim < 0 ? op.whole(x) : op.along(x, dim)};
                         });
                       }});
    }
  }
}

void add_matmul_cases(std::vector<Case>& cases) {
  cases.push_back({"attention_fwd", [] {
                     Tensor q = pattern(kAtt, 1, -1, 1), k = pattern(kAtt, 2, -1, 1),
                            v = pattern(kAtt, 3, -1, 1);
                     return Body([=] {
                       return Outputs{ember::scaled_dot_product_attention(q, k, v, {}, 0.0, true)};
                     });
                   }});
  cases.push_back({"attention_bwd", [] {
                     Tensor q = leaf(kAtt, 1, -1, 1), k = leaf(kAtt, 2, -1, 1),
                            v = leaf(kAtt, 3, -1, 1);
                     Tensor y = ember::scaled_dot_product_attention(q, k, v, {}, 0.0, true);
                     return grad_body(y, {q, k, v}, 9);
                   }});
  for (int64_t n : {1024, 2048}) {
    cases.push_back({"sgemm_" + std::to_string(n), [n] {
                       Tensor a = pattern({n, n}, 1, -1, 1), b = pattern({n, n}, 2, -1, 1);
                       return Body([a, b] { return Outputs{ember::mm(a, b)}; });
                     }});
  }
  cases.push_back({"linear_1x4096", [] {
                     Tensor x = pattern({1, 4096}, 1, -1, 1),
                            w = pattern({4096, 4096}, 2, -0.05, 0.05),
                            b = pattern({4096}, 3, -1, 1);
                     return Body([=] { return Outputs{F::linear(x, w, b)}; });
                   }});
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Case> cases;
  add_norm_cases(cases);
  add_elementwise_cases(cases);
  add_reduction_cases(cases);
  add_matmul_cases(cases);
  return bench::run_main(argc, argv, cases);
}
