// nn::RNN / LSTM / GRU and their cells against float64 step equations written with plain loops.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "ember/autograd.h"
#include "ember/ember.h"
#include "opdb.h"

namespace ember {
namespace {

using test::expect_errors;
using test::from_values;
using test::make_tensor;
using test::values;
using V = std::vector<double>;

double sig(double x) { return 1 / (1 + std::exp(-x)); }

enum class Mode { Tanh, Relu, LSTM, GRU };

int64_t gates(Mode m) { return m == Mode::LSTM ? 4 : m == Mode::GRU ? 3 : 1; }

struct Config {
  Mode mode;
  int64_t I, H, L;
  bool bidir, bias;
  int64_t P = 0;  // LSTM projection size
};

struct RefOut {
  V out, hn, cn;
};

/// One stacked, optionally bidirectional RNN in double: x (T, B, I) sequence first,
/// h0 (L * D, B, Hout), c0 (L * D, B, H). Parameters read by PyTorch's names.
RefOut rnn_ref(const Config& c, const std::map<std::string, V>& p, int64_t T, int64_t B, const V& x,
               const V& h0, const V& c0) {
  const int64_t D = c.bidir ? 2 : 1, H = c.H, Ho = c.P > 0 ? c.P : c.H, G = gates(c.mode) * H;
  RefOut r;
  r.hn.assign(c.L * D * B * Ho, 0);
  r.cn.assign(c.L * D * B * H, 0);
  V in = x;
  int64_t In = c.I;
  for (int64_t l = 0; l < c.L; ++l) {
    V out(T * B * D * Ho, 0);
    for (int64_t d = 0; d < D; ++d) {
      const std::string s = "_l" + std::to_string(l) + (d ? "_reverse" : "");
      const V& wih = p.at("weight_ih" + s);
      const V& whh = p.at("weight_hh" + s);
      const V zero(G, 0);
      const V& bih = c.bias ? p.at("bias_ih" + s) : zero;
      const V& bhh = c.bias ? p.at("bias_hh" + s) : zero;
      const int64_t idx = l * D + d;
      V h(h0.begin() + idx * B * Ho, h0.begin() + (idx + 1) * B * Ho);
      V cc = c.mode == Mode::LSTM ? V(c0.begin() + idx * B * H, c0.begin() + (idx + 1) * B * H)
                                  : V(B * H, 0);
      for (int64_t step = 0; step < T; ++step) {
        const int64_t t = d ? T - 1 - step : step;
        V hnew(B * Ho);
        for (int64_t b = 0; b < B; ++b) {
          V gi(G), gh(G);
          for (int64_t g = 0; g < G; ++g) {
            gi[g] = bih[g];
            for (int64_t k = 0; k < In; ++k) gi[g] += wih[g * In + k] * in[(t * B + b) * In + k];
            gh[g] = bhh[g];
            for (int64_t k = 0; k < Ho; ++k) gh[g] += whh[g * Ho + k] * h[b * Ho + k];
          }
          V hfull(H);
          for (int64_t j = 0; j < H; ++j) {
            switch (c.mode) {
              case Mode::Tanh:
                hfull[j] = std::tanh(gi[j] + gh[j]);
                break;
              case Mode::Relu:
                hfull[j] = std::max(0.0, gi[j] + gh[j]);
                break;
              case Mode::LSTM: {
                const double i = sig(gi[j] + gh[j]), f = sig(gi[H + j] + gh[H + j]);
                const double g = std::tanh(gi[2 * H + j] + gh[2 * H + j]);
                const double o = sig(gi[3 * H + j] + gh[3 * H + j]);
                cc[b * H + j] = f * cc[b * H + j] + i * g;
                hfull[j] = o * std::tanh(cc[b * H + j]);
                break;
              }
              case Mode::GRU: {
                const double rr = sig(gi[j] + gh[j]), z = sig(gi[H + j] + gh[H + j]);
                const double n = std::tanh(gi[2 * H + j] + rr * gh[2 * H + j]);
                hfull[j] = (1 - z) * n + z * h[b * Ho + j];
                break;
              }
            }
          }
          for (int64_t k = 0; k < Ho; ++k) {
            if (c.P > 0) {
              const V& whr = p.at("weight_hr" + s);
              double acc = 0;
              for (int64_t j = 0; j < H; ++j) acc += whr[k * H + j] * hfull[j];
              hnew[b * Ho + k] = acc;
            } else {
              hnew[b * Ho + k] = hfull[k];
            }
          }
        }
        h = hnew;
        for (int64_t b = 0; b < B; ++b) {
          for (int64_t k = 0; k < Ho; ++k) out[(t * B + b) * D * Ho + d * Ho + k] = h[b * Ho + k];
        }
      }
      std::copy(h.begin(), h.end(), r.hn.begin() + idx * B * Ho);
      std::copy(cc.begin(), cc.end(), r.cn.begin() + idx * B * H);
    }
    in = out;
    In = D * Ho;
  }
  r.out = in;
  return r;
}

std::map<std::string, V> param_values(const nn::Module& m) {
  std::map<std::string, V> out;
  for (const auto& item : m.named_parameters()) out[item.key()] = values(item.value());
  return out;
}

void expect_near(const Tensor& t, const std::vector<int64_t>& shape, const V& ref,
                 double tol = 1e-10) {
  EXPECT_TRUE(test::close(t, shape, ref, tol, tol));
}

/// (T, B, F) sequence-first values -> (B, T, F).
V to_batch_first(const V& v, int64_t T, int64_t B, int64_t F) {
  V out(v.size());
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t f = 0; f < F; ++f) out[(b * T + t) * F + f] = v[(t * B + b) * F + f];
    }
  }
  return out;
}

TEST(NnRNN, ParameterNamesShapesAndInit) {
  nn::LSTM lstm(nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true));
  std::vector<std::string> expected;
  for (std::string l : {"0", "1"}) {
    for (std::string d : {"", "_reverse"}) {
      for (std::string n : {"weight_ih_l", "weight_hh_l", "bias_ih_l", "bias_hh_l"}) {
        expected.push_back(n + l + d);
      }
    }
  }
  EXPECT_EQ(lstm->named_parameters().keys(), expected);
  EXPECT_EQ(lstm->state_dict().keys(), expected);
  auto p = lstm->named_parameters();
  EXPECT_EQ(p["weight_ih_l0"].sizes(), (std::vector<int64_t>{16, 3}));
  EXPECT_EQ(p["weight_hh_l0_reverse"].sizes(), (std::vector<int64_t>{16, 4}));
  EXPECT_EQ(p["weight_ih_l1"].sizes(), (std::vector<int64_t>{16, 8}));
  EXPECT_EQ(p["bias_hh_l1_reverse"].sizes(), (std::vector<int64_t>{16}));
  EXPECT_EQ(lstm->all_weights().size(), 16u);
  for (const auto& t : lstm->parameters()) {
    EXPECT_EQ(t.dtype(), kFloat32);
    EXPECT_TRUE(t.requires_grad());
    for (double v : values(t)) EXPECT_LE(std::abs(v), 0.5 + 1e-7);  // 1 / sqrt(4)
  }
  auto w = values(p["weight_ih_l0"]);
  EXPECT_NE(w[0], w[1]);

  nn::GRU gru(nn::GRUOptions(5, 3).bias(false));
  EXPECT_EQ(gru->named_parameters().keys(),
            (std::vector<std::string>{"weight_ih_l0", "weight_hh_l0"}));
  EXPECT_EQ(gru->named_parameters()["weight_ih_l0"].sizes(), (std::vector<int64_t>{9, 5}));
  nn::RNN rnn(4, 6);
  EXPECT_EQ(rnn->named_parameters()["weight_hh_l0"].sizes(), (std::vector<int64_t>{6, 6}));
  nn::LSTM proj(nn::LSTMOptions(3, 5).proj_size(2));
  EXPECT_EQ(proj->named_parameters().keys(),
            (std::vector<std::string>{"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
                                      "weight_hr_l0"}));
  EXPECT_EQ(proj->named_parameters()["weight_hh_l0"].sizes(), (std::vector<int64_t>{20, 2}));
  EXPECT_EQ(proj->named_parameters()["weight_hr_l0"].sizes(), (std::vector<int64_t>{2, 5}));

  nn::LSTMCell lc(3, 2);
  EXPECT_EQ(lc->named_parameters().keys(),
            (std::vector<std::string>{"weight_ih", "weight_hh", "bias_ih", "bias_hh"}));
  EXPECT_EQ(lc->weight_ih.sizes(), (std::vector<int64_t>{8, 3}));
  nn::GRUCell gc(nn::GRUCellOptions(3, 2).bias(false));
  EXPECT_EQ(gc->named_parameters().keys(), (std::vector<std::string>{"weight_ih", "weight_hh"}));
  EXPECT_EQ(gc->weight_hh.sizes(), (std::vector<int64_t>{6, 2}));

  std::ostringstream os;
  os << *lstm << " " << *nn::RNNCell(nn::RNNCellOptions(2, 3).nonlinearity(kReLU));
  EXPECT_NE(os.str().find("ember::nn::LSTM(input_size=3, hidden_size=4, num_layers=2"),
            std::string::npos)
      << os.str();
  EXPECT_NE(os.str().find("ember::nn::RNNCell(2, 3, nonlinearity=kReLU)"), std::string::npos)
      << os.str();
}

struct Case {
  Config c;
  const char* name;
};

template <typename M>
void check_against_reference(M& m, const Config& c, bool batch_first, bool give_hx) {
  const int64_t T = 4, B = 3, D = c.bidir ? 2 : 1, Ho = c.P > 0 ? c.P : c.H;
  m->to(kFloat64);
  V x = values(make_tensor({T, B, c.I}, kFloat64, -1, 1, 11));
  V h0 =
      give_hx ? values(make_tensor({c.L * D, B, Ho}, kFloat64, -1, 1, 12)) : V(c.L * D * B * Ho, 0);
  V c0 = give_hx ? values(make_tensor({c.L * D, B, c.H}, kFloat64, -1, 1, 13))
                 : V(c.L * D * B * c.H, 0);
  RefOut ref = rnn_ref(c, param_values(*m), T, B, x, h0, c0);
  Tensor xt = batch_first ? from_values({B, T, c.I}, to_batch_first(x, T, B, c.I))
                          : from_values({T, B, c.I}, x);
  Tensor ht = from_values({c.L * D, B, Ho}, h0), ct = from_values({c.L * D, B, c.H}, c0);
  const std::vector<int64_t> out_shape =
      batch_first ? std::vector<int64_t>{B, T, D * Ho} : std::vector<int64_t>{T, B, D * Ho};
  const V out_ref = batch_first ? to_batch_first(ref.out, T, B, D * Ho) : ref.out;
  if constexpr (std::is_same_v<M, nn::LSTM>) {
    auto [out, hc] = give_hx ? m->forward(xt, std::make_tuple(ht, ct)) : m->forward(xt);
    expect_near(out, out_shape, out_ref);
    expect_near(std::get<0>(hc), {c.L * D, B, Ho}, ref.hn);
    expect_near(std::get<1>(hc), {c.L * D, B, c.H}, ref.cn);
  } else {
    auto [out, hn] = give_hx ? m->forward(xt, ht) : m->forward(xt);
    expect_near(out, out_shape, out_ref);
    expect_near(hn, {c.L * D, B, Ho}, ref.hn);
  }
}

TEST(NnRNN, MatchesStepEquations) {
  const std::vector<Case> cases = {
      {{Mode::Tanh, 3, 4, 1, false, true}, "rnn_tanh"},
      {{Mode::Relu, 3, 4, 2, true, true}, "rnn_relu_2l_bidir"},
      {{Mode::LSTM, 3, 4, 1, false, true}, "lstm"},
      {{Mode::LSTM, 2, 3, 2, true, false}, "lstm_2l_bidir_nobias"},
      {{Mode::LSTM, 3, 4, 2, true, true, 2}, "lstm_proj_2l_bidir"},
      {{Mode::GRU, 3, 4, 1, false, true}, "gru"},
      {{Mode::GRU, 2, 3, 3, true, true}, "gru_3l_bidir"},
  };
  for (const auto& k : cases) {
    for (bool batch_first : {false, true}) {
      for (bool give_hx : {false, true}) {
        SCOPED_TRACE(std::string(k.name) + (batch_first ? " batch_first" : "") +
                     (give_hx ? " hx" : ""));
        const Config& c = k.c;
        if (c.mode == Mode::LSTM) {
          nn::LSTM m(nn::LSTMOptions(c.I, c.H)
                         .num_layers(c.L)
                         .bidirectional(c.bidir)
                         .bias(c.bias)
                         .batch_first(batch_first)
                         .proj_size(c.P));
          check_against_reference(m, c, batch_first, give_hx);
        } else if (c.mode == Mode::GRU) {
          nn::GRU m(nn::GRUOptions(c.I, c.H)
                        .num_layers(c.L)
                        .bidirectional(c.bidir)
                        .bias(c.bias)
                        .batch_first(batch_first));
          check_against_reference(m, c, batch_first, give_hx);
        } else {
          nn::RNN m(nn::RNNOptions(c.I, c.H)
                        .num_layers(c.L)
                        .bidirectional(c.bidir)
                        .bias(c.bias)
                        .batch_first(batch_first)
                        .nonlinearity(c.mode == Mode::Relu ? kReLU : kTanh));
          check_against_reference(m, c, batch_first, give_hx);
        }
      }
    }
  }
}

TEST(NnRNN, Float32AndUnbatchedAndBatchFirstEquivalence) {
  nn::GRU a(nn::GRUOptions(3, 4).num_layers(2).bidirectional(true));
  nn::GRU b(nn::GRUOptions(3, 4).num_layers(2).bidirectional(true).batch_first(true));
  b->load_state_dict(a->state_dict());
  Tensor x = make_tensor({5, 2, 3}, kFloat32, -1, 1, 3);
  auto [ya, ha] = a->forward(x);
  auto [yb, hb] = b->forward(x.transpose(0, 1));
  EXPECT_EQ(ya.dtype(), kFloat32);
  EXPECT_TRUE(ya.allclose(yb.transpose(0, 1), 1e-6, 1e-6));
  EXPECT_TRUE(ha.allclose(hb, 1e-6, 1e-6));
  // Unbatched (seq, feature) input gives the batch-of-one result without the batch dim.
  auto [yu, hu] = a->forward(x.select(1, 0));
  auto [y1, h1] = a->forward(x.narrow(1, 0, 1));
  EXPECT_EQ(yu.sizes(), (std::vector<int64_t>{5, 8}));
  EXPECT_EQ(hu.sizes(), (std::vector<int64_t>{4, 4}));
  EXPECT_TRUE(yu.allclose(y1.select(1, 0), 1e-6, 1e-6));
  EXPECT_TRUE(hu.allclose(h1.select(1, 0), 1e-6, 1e-6));
  auto [ybu, hbu] = b->forward(x.select(1, 0));  // unbatched with batch_first: same layout
  EXPECT_TRUE(ybu.allclose(yu, 1e-6, 1e-6));
  // Unbatched LSTM with an explicit 2-D state; hx zeros by default.
  nn::LSTM l(3, 2);
  auto [lo, lhc] = l->forward(x.select(1, 0));
  auto [lo2, lhc2] = l->forward(x.select(1, 0), std::make_tuple(zeros({1, 2}), zeros({1, 2})));
  EXPECT_TRUE(lo.equal(lo2));
  EXPECT_EQ(std::get<1>(lhc).sizes(), (std::vector<int64_t>{1, 2}));
}

TEST(NnRNN, DropoutOnlyBetweenLayersAndOnlyInTraining) {
  manual_seed(0);
  nn::LSTM m(nn::LSTMOptions(3, 8).num_layers(2).dropout(0.5));
  m->to(kFloat64);
  Tensor x = make_tensor({6, 2, 3}, kFloat64, -1, 1, 5);
  m->eval();
  auto [e1, s1] = m->forward(x);
  auto [e2, s2] = m->forward(x);
  EXPECT_TRUE(e1.equal(e2));
  Config c{Mode::LSTM, 3, 8, 2, false, true};
  RefOut ref = rnn_ref(c, param_values(*m), 6, 2, values(x), V(2 * 2 * 8, 0), V(2 * 2 * 8, 0));
  expect_near(e1, {6, 2, 8}, ref.out);
  m->train();
  auto [t1, u1] = m->forward(x);
  EXPECT_FALSE(t1.allclose(e1, 1e-6, 1e-6));
  // With one layer, dropout has nothing to act on (PyTorch warns): training equals eval.
  nn::GRU g(nn::GRUOptions(3, 4).dropout(0.5));
  Tensor xf = make_tensor({4, 2, 3}, kFloat32, -1, 1, 6);
  auto [g1, gh1] = g->forward(xf);
  g->eval();
  auto [g2, gh2] = g->forward(xf);
  EXPECT_TRUE(g1.equal(g2));
}

TEST(NnRNN, Cells) {
  const int64_t B = 3, I = 4, H = 5;
  Tensor x = make_tensor({B, I}, kFloat64, -1, 1, 21);
  Tensor h = make_tensor({B, H}, kFloat64, -1, 1, 22);
  Tensor c = make_tensor({B, H}, kFloat64, -1, 1, 23);
  const V xv = values(x), hv = values(h), cv = values(c);
  auto gates_of = [&](nn::detail::RNNCellImplBase& m, int64_t G) {
    V w = values(m.weight_ih), u = values(m.weight_hh), bi = values(m.bias_ih),
      bh = values(m.bias_hh);
    V gi(B * G), gh(B * G);
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t g = 0; g < G; ++g) {
        gi[b * G + g] = bi[g];
        gh[b * G + g] = bh[g];
        for (int64_t k = 0; k < I; ++k) gi[b * G + g] += w[g * I + k] * xv[b * I + k];
        for (int64_t k = 0; k < H; ++k) gh[b * G + g] += u[g * H + k] * hv[b * H + k];
      }
    }
    return std::make_pair(gi, gh);
  };
  {
    nn::RNNCell m(nn::RNNCellOptions(I, H).nonlinearity(kReLU));
    m->to(kFloat64);
    auto [gi, gh] = gates_of(*m, H);
    V ref(B * H);
    for (int64_t i = 0; i < B * H; ++i) ref[i] = std::max(0.0, gi[i] + gh[i]);
    expect_near(m->forward(x, h), {B, H}, ref);
    expect_near(m->forward(x.select(0, 1), h.select(0, 1)), {H},
                V(ref.begin() + H, ref.begin() + 2 * H));
  }
  {
    nn::LSTMCell m(I, H);
    m->to(kFloat64);
    auto [gi, gh] = gates_of(*m, 4 * H);
    V rh(B * H), rc(B * H);
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t j = 0; j < H; ++j) {
        auto at = [&](int64_t k) { return gi[b * 4 * H + k * H + j] + gh[b * 4 * H + k * H + j]; };
        rc[b * H + j] = sig(at(1)) * cv[b * H + j] + sig(at(0)) * std::tanh(at(2));
        rh[b * H + j] = sig(at(3)) * std::tanh(rc[b * H + j]);
      }
    }
    auto [h1, c1] = m->forward(x, std::make_tuple(h, c));
    expect_near(h1, {B, H}, rh);
    expect_near(c1, {B, H}, rc);
  }
  {
    nn::GRUCell m(I, H);
    m->to(kFloat64);
    auto [gi, gh] = gates_of(*m, 3 * H);
    V ref(B * H);
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t j = 0; j < H; ++j) {
        const int64_t o = b * 3 * H;
        const double r = sig(gi[o + j] + gh[o + j]), z = sig(gi[o + H + j] + gh[o + H + j]);
        const double n = std::tanh(gi[o + 2 * H + j] + r * gh[o + 2 * H + j]);
        ref[b * H + j] = (1 - z) * n + z * hv[b * H + j];
      }
    }
    expect_near(m->forward(x, h), {B, H}, ref);
    // hx defaults to zeros.
    EXPECT_TRUE(m->forward(x).equal(m->forward(x, zeros({B, H}, kFloat64))));
  }
}

/// Checks the gradient of sum(f() * gy) w.r.t. every element of `param` by central differences.
void check_param_grad(Tensor param, const std::function<Tensor()>& f) {
  Tensor y = f();
  Tensor gy = make_tensor(y.sizes(), kFloat64, -1, 1, 99);
  param.mutable_grad() = Tensor();
  (y * gy).sum().backward();
  const V g = values(param.grad());
  V p = values(param);
  auto loss = [&]() {
    NoGradGuard ng;
    return (f() * gy).sum().item<double>();
  };
  const double eps = 1e-6;
  for (size_t k = 0; k < p.size(); ++k) {
    const double saved = p[k];
    auto set = [&](double v) {
      NoGradGuard ng;
      p[k] = v;
      param.copy_(from_values(param.sizes(), p));
    };
    set(saved + eps);
    const double lp = loss();
    set(saved - eps);
    const double lm = loss();
    set(saved);
    const double fd = (lp - lm) / (2 * eps);
    EXPECT_NEAR(g[k], fd, 1e-6 * (1 + std::abs(fd))) << "element " << k;
  }
}

TEST(NnRNN, Gradcheck) {
  using autograd::gradcheck;
  nn::LSTM lstm(nn::LSTMOptions(2, 3).num_layers(2).bidirectional(true));
  lstm->to(kFloat64);
  Tensor x = make_tensor({3, 2, 2}, kFloat64, -1, 1, 31).requires_grad_();
  Tensor h0 = make_tensor({4, 2, 3}, kFloat64, -1, 1, 32).requires_grad_();
  Tensor c0 = make_tensor({4, 2, 3}, kFloat64, -1, 1, 33).requires_grad_();
  EXPECT_TRUE(gradcheck(
      [&](const std::vector<Tensor>& in) {
        auto [out, hc] = lstm->forward(in[0], std::make_tuple(in[1], in[2]));
        return std::vector<Tensor>{out, std::get<0>(hc), std::get<1>(hc)};
      },
      {x, h0, c0}));
  nn::GRU gru(nn::GRUOptions(2, 3).batch_first(true));
  gru->to(kFloat64);
  Tensor xg = make_tensor({2, 3, 2}, kFloat64, -1, 1, 34).requires_grad_();
  Tensor hg = make_tensor({1, 2, 3}, kFloat64, -1, 1, 35).requires_grad_();
  EXPECT_TRUE(gradcheck(
      [&](const std::vector<Tensor>& in) {
        auto [out, h] = gru->forward(in[0], in[1]);
        return std::vector<Tensor>{out, h};
      },
      {xg, hg}));
  // Gradients of the weights themselves.
  Tensor xd = xg.detach();
  for (const auto& p : gru->parameters()) {
    check_param_grad(p, [&] { return std::get<0>(gru->forward(xd)); });
  }
  nn::LSTM small(2, 2);
  small->to(kFloat64);
  Tensor xs = x.detach().narrow(2, 0, 2);
  check_param_grad(small->named_parameters()["weight_hh_l0"],
                   [&] { return std::get<0>(small->forward(xs)); });
  nn::RNNCell cell(2, 3);
  cell->to(kFloat64);
  EXPECT_TRUE(gradcheck(
      [&](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{cell->forward(in[0], in[1])};
      },
      {make_tensor({2, 2}, kFloat64, -1, 1, 36).requires_grad_(),
       make_tensor({2, 3}, kFloat64, -1, 1, 37).requires_grad_()}));
}

TEST(NnRNN, Errors) {
  nn::LSTM lstm(nn::LSTMOptions(3, 4).num_layers(2));
  nn::GRU gru(3, 4);
  nn::RNN rnn(3, 4);
  Tensor x = zeros({5, 2, 3});
  expect_errors<ValueError>({
      {"rank 4",
       [&] {
         lstm->forward(zeros({1, 5, 2, 3}));
       },
       "[LSTM] Expected input to be 2D or 3D, got 4D instead"},
      {"rank 1", [&] { rnn->forward(zeros({3})); },
       "[RNN] Expected input to be 2D or 3D, got 1D tensor instead"},
      {"dtype",
       [&] {
         gru->forward(zeros({5, 2, 3}, kFloat64));
       },
       "[GRU] input must have the type torch.float32, got type torch.float64"},
      {"dropout", [&] { nn::GRU(nn::GRUOptions(3, 4).dropout(1.5)); }, "[GRU] dropout should be"},
      {"hidden 0", [&] { nn::RNN(3, 0); }, "[RNN] hidden_size must be greater than zero"},
      {"layers 0", [&] { nn::LSTM(nn::LSTMOptions(3, 4).num_layers(0)); },
       "[LSTM] num_layers must be greater than zero"},
      {"proj", [&] { nn::LSTM(nn::LSTMOptions(3, 4).proj_size(4)); },
       "proj_size has to be smaller than hidden_size"},
      {"nonlinearity", [&] { nn::RNN(nn::RNNOptions(3, 4).nonlinearity(kSigmoid)); },
       "[RNN] Unknown nonlinearity"},
      {"cell rank",
       [&] {
         nn::GRUCell(3, 4)->forward(zeros({1, 2, 3}));
       },
       "[GRUCell] Expected input to be 1D or 2D, got 3D instead"},
      {"cell hx rank",
       [&] {
         nn::RNNCell(3, 4)->forward(zeros({2, 3}), zeros({1, 2, 4}));
       },
       "[RNNCell] Expected hidden to be 1D or 2D, got 3D instead"},
  });
  expect_errors<RuntimeError>({
      {"features",
       [&] {
         gru->forward(zeros({5, 2, 7}));
       },
       "[GRU] input.size(-1) must be equal to input_size. Expected 3, got 7"},
      {"hx shape",
       [&] {
         rnn->forward(x, zeros({2, 2, 4}));
       },
       "[RNN] Expected hidden size (1, 2, 4), got [2, 2, 4]"},
      {"cx shape",
       [&] {
         lstm->forward(x, std::make_tuple(zeros({2, 2, 4}), zeros({2, 3, 4})));
       },
       "[LSTM] Expected hidden[1] size (2, 2, 4), got [2, 3, 4]"},
      {"hx rank batched",
       [&] {
         gru->forward(x, zeros({2, 4}));
       },
       "[GRU] For batched 3-D input, hx should also be 3-D but got 2-D tensor"},
      {"hx rank unbatched",
       [&] {
         lstm->forward(zeros({5, 3}), std::make_tuple(zeros({2, 1, 4}), zeros({2, 4})));
       },
       "[LSTM] For unbatched 2-D input, hx and cx should also be 2-D but got (3-D, 2-D) tensors"},
      {"cell features",
       [&] {
         nn::LSTMCell(3, 4)->forward(zeros({2, 5}));
       },
       "[LSTMCell] input has inconsistent input_size: got 5 expected 3"},
      {"cell batch",
       [&] {
         nn::GRUCell(3, 4)->forward(zeros({2, 3}), zeros({3, 4}));
       },
       "[GRUCell] Input batch size 2 doesn't match hidden0 batch size 3"},
      {"cell hidden size",
       [&] {
         nn::LSTMCell(3, 4)->forward(zeros({2, 3}), std::make_tuple(zeros({2, 4}), zeros({2, 5})));
       },
       "[LSTMCell] hidden1 has inconsistent hidden_size: got 5, expected 4"},
  });
}

}  // namespace
}  // namespace ember
