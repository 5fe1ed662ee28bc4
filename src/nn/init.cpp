// torch.nn.init, following PyTorch's formulas (torch/nn/init.py).
#include "ember/nn/init.h"

#include <cmath>
#include <vector>

#include "ember/autograd.h"
#include "ember/ember.h"

namespace ember::nn::init {

double calculate_gain(Nonlinearity nl, double param) {
  switch (nl) {
    case Nonlinearity::Tanh:
      return 5.0 / 3;
    case Nonlinearity::ReLU:
      return std::sqrt(2.0);
    case Nonlinearity::LeakyReLU:
      return std::sqrt(2.0 / (1 + param * param));
    case Nonlinearity::SELU:
      return 3.0 / 4;
    default:
      return 1;  // linear, conv*, sigmoid
  }
}

std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& t) {
  EMBER_CHECK_VALUE(t.dim() >= 2,
                    "[init] Fan in and fan out can not be computed for tensor with "
                    "fewer than 2 dimensions");
  int64_t receptive = 1;
  for (int64_t d = 2; d < t.dim(); ++d) receptive *= t.size(d);
  return {t.size(1) * receptive, t.size(0) * receptive};
}

namespace {
int64_t fan(const Tensor& t, FanMode mode) {
  auto [in, out] = _calculate_fan_in_and_fan_out(t);
  return mode == kFanIn ? in : out;
}
}  // namespace

Tensor uniform_(Tensor t, double low, double high) {
  NoGradGuard g;
  return t.uniform_(low, high);
}

Tensor normal_(Tensor t, double mean, double std) {
  NoGradGuard g;
  return t.normal_(mean, std);
}

Tensor constant_(Tensor t, const Scalar& value) {
  NoGradGuard g;
  return t.fill_(value);
}

Tensor ones_(Tensor t) { return constant_(t, 1); }
Tensor zeros_(Tensor t) { return constant_(t, 0); }

Tensor eye_(Tensor m) {
  EMBER_CHECK_VALUE(m.dim() == 2, "[eye_] Only tensors with 2 dimensions are supported");
  NoGradGuard g;
  return m.copy_(eye(m.size(0), m.size(1), TensorOptions().dtype(m.dtype())));
}

Tensor dirac_(Tensor t) {
  EMBER_CHECK_VALUE(t.dim() >= 3 && t.dim() <= 5,
                    "[dirac_] Only tensors with 3, 4, or 5 "
                    "dimensions are supported");
  NoGradGuard g;
  t.zero_();
  const int64_t n = std::min(t.size(0), t.size(1));
  for (int64_t i = 0; i < n; ++i) {
    std::vector<TensorIndex> idx{i, i};
    for (int64_t d = 2; d < t.dim(); ++d) idx.emplace_back(t.size(d) / 2);
    t.index_put_(idx, Scalar(1));
  }
  return t;
}

Tensor xavier_uniform_(Tensor t, double gain) {
  auto [in, out] = _calculate_fan_in_and_fan_out(t);
  const double a = gain * std::sqrt(6.0 / static_cast<double>(in + out));
  return uniform_(t, -a, a);
}

Tensor xavier_normal_(Tensor t, double gain) {
  auto [in, out] = _calculate_fan_in_and_fan_out(t);
  return normal_(t, 0, gain * std::sqrt(2.0 / static_cast<double>(in + out)));
}

Tensor kaiming_uniform_(Tensor t, double a, FanMode mode, Nonlinearity nl) {
  if (t.numel() == 0) return t;
  const double bound = calculate_gain(nl, a) * std::sqrt(3.0 / static_cast<double>(fan(t, mode)));
  return uniform_(t, -bound, bound);
}

Tensor kaiming_normal_(Tensor t, double a, FanMode mode, Nonlinearity nl) {
  if (t.numel() == 0) return t;
  return normal_(t, 0, calculate_gain(nl, a) / std::sqrt(static_cast<double>(fan(t, mode))));
}

Tensor trunc_normal_(Tensor t, double mean, double std, double a, double b) {
  NoGradGuard g;
  auto cdf = [](double x) { return (1 + std::erf(x / std::sqrt(2.0))) / 2; };
  const double l = cdf((a - mean) / std), u = cdf((b - mean) / std);
  // Uniform in [2l - 1, 2u - 1], then the inverse CDF via erfinv.
  Tensor v = empty_like(t, TensorOptions().dtype(kFloat64)).uniform_(2 * l - 1, 2 * u - 1);
  v = v.erfinv().mul_(std * std::sqrt(2.0)).add_(mean).clamp_(a, b);
  return t.copy_(v);
}

Tensor orthogonal_(Tensor t, double gain) {
  EMBER_CHECK_VALUE(t.dim() >= 2,
                    "[orthogonal_] Only tensors with 2 or more dimensions are "
                    "supported");
  if (t.numel() == 0) return t;
  NoGradGuard g;
  const int64_t rows = t.size(0), cols = t.numel() / rows;
  // Gram-Schmidt (twice, for stability) on the columns of a normal matrix, tall orientation.
  const bool wide = rows < cols;
  const int64_t m = wide ? cols : rows, n = wide ? rows : cols;
  std::vector<double> q = empty({m, n}, kFloat64).normal_().contiguous().tolist<double>();
  for (int64_t j = 0; j < n; ++j) {
    for (int pass = 0; pass < 2; ++pass) {
      for (int64_t k = 0; k < j; ++k) {
        double dot = 0;
        for (int64_t i = 0; i < m; ++i) dot += q[i * n + k] * q[i * n + j];
        for (int64_t i = 0; i < m; ++i) q[i * n + j] -= dot * q[i * n + k];
      }
    }
    double norm = 0;
    for (int64_t i = 0; i < m; ++i) norm += q[i * n + j] * q[i * n + j];
    norm = std::sqrt(norm);
    for (int64_t i = 0; i < m; ++i) q[i * n + j] /= norm;
  }
  Tensor qt = from_blob(q.data(), {m, n}, kFloat64).clone();
  if (wide) qt = qt.t();
  return t.copy_((qt * gain).reshape(SymIntList(t.sizes())));
}

}  // namespace ember::nn::init
