// Recurrent modules (torch/nn/modules/rnn.py) written with Ember ops: the input projection of a
// whole sequence is one matmul, the recurrence a loop over time of addmm + pointwise ops, so
// autograd differentiates through it.
#include "ember/nn/modules/rnn.h"

#include <cmath>
#include <sstream>

#include "ember/autograd.h"
#include "ember/autograd/function.h"
#include "ember/ember.h"
#include "ember/nn/functional/dropout.h"
#include "ember/nn/init.h"

namespace ember::nn {

namespace {

std::string shape_tuple(const std::vector<int64_t>& s) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << (s.size() == 1 ? ",)" : ")");
  return os.str();
}

std::string shape_list(const std::vector<int64_t>& s) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << "]";
  return os.str();
}

int64_t gate_count(detail::RNNMode mode) {
  switch (mode) {
    case detail::RNNMode::LSTM:
      return 4;
    case detail::RNNMode::GRU:
      return 3;
    default:
      return 1;
  }
}

detail::RNNMode rnn_mode(Nonlinearity nl, const char* op) {
  EMBER_CHECK_VALUE(nl == Nonlinearity::Tanh || nl == Nonlinearity::ReLU, "[", op,
                    "] Unknown nonlinearity. Select from 'tanh' (ember::kTanh) or 'relu' "
                    "(ember::kReLU).");
  return nl == Nonlinearity::Tanh ? detail::RNNMode::RNN_TANH : detail::RNNMode::RNN_RELU;
}

/// The time steps of x (T, ...) as T tensors whose backward is one stack. (A select per step
/// would give each step a backward that writes a zero-filled gradient of the whole sequence,
/// quadratic in the sequence length.)
struct UnbindSteps : autograd::Function<UnbindSteps> {
  static autograd::variable_list forward(autograd::AutogradContext* ctx, Tensor x) {
    ctx->saved_data["shape"] = x.sizes();
    ctx->saved_data["dtype"] = static_cast<int64_t>(x.dtype());
    autograd::variable_list out = x.unbind(0);
    for (auto& t : out) t = t.clone();
    return out;
  }
  static autograd::variable_list backward(autograd::AutogradContext* ctx,
                                          autograd::variable_list grads) {
    std::vector<int64_t> step = ctx->saved_data["shape"].toIntVector();
    step.erase(step.begin());
    const auto dtype = static_cast<ScalarType>(ctx->saved_data["dtype"].toInt());
    for (auto& g : grads) {
      if (!g.defined()) g = zeros(SymIntList(step), TensorOptions().dtype(dtype));
    }
    return {stack(grads, 0)};
  }
};

std::vector<Tensor> unbind_steps(const Tensor& x) {
  if (x.size(0) == 0) return {};
  if (is_grad_enabled() && x.requires_grad()) return UnbindSteps::apply(x);
  return x.unbind(0);
}

}  // namespace

namespace detail {

RNNImplBase::RNNImplBase(std::string name, const char* label, const Config& config)
    : Module(std::move(name)), label_(label), cfg_(config) {}

void RNNImplBase::reset_base(const Config& c) {
  EMBER_CHECK_VALUE(c.dropout >= 0 && c.dropout <= 1, "[", label_,
                    "] dropout should be a number in range [0, 1] representing the probability of "
                    "an element being zeroed");
  EMBER_CHECK_VALUE(c.input_size >= 0, "[", label_, "] input_size must be non-negative, got ",
                    c.input_size);
  EMBER_CHECK_VALUE(c.hidden_size > 0, "[", label_, "] hidden_size must be greater than zero");
  EMBER_CHECK_VALUE(c.num_layers > 0, "[", label_, "] num_layers must be greater than zero");
  EMBER_CHECK_VALUE(c.proj_size >= 0, "[", label_,
                    "] proj_size should be a positive integer or zero to disable projections");
  EMBER_CHECK_VALUE(c.proj_size < c.hidden_size, "[", label_,
                    "] proj_size has to be smaller than hidden_size");
  cfg_ = c;
  const int64_t dirs = c.bidirectional ? 2 : 1;
  const int64_t gate_size = gate_count(c.mode) * c.hidden_size;
  const int64_t real_hidden = c.proj_size > 0 ? c.proj_size : c.hidden_size;
  cells_.clear();
  for (int64_t layer = 0; layer < c.num_layers; ++layer) {
    for (int64_t d = 0; d < dirs; ++d) {
      const int64_t in = layer == 0 ? c.input_size : real_hidden * dirs;
      const std::string sfx = "_l" + std::to_string(layer) + (d == 1 ? "_reverse" : "");
      Cell cell;
      cell.w_ih = register_parameter("weight_ih" + sfx, empty({gate_size, in}, kFloat32));
      cell.w_hh = register_parameter("weight_hh" + sfx, empty({gate_size, real_hidden}, kFloat32));
      if (c.bias) {
        cell.b_ih = register_parameter("bias_ih" + sfx, empty({gate_size}, kFloat32));
        cell.b_hh = register_parameter("bias_hh" + sfx, empty({gate_size}, kFloat32));
      }
      if (c.proj_size > 0) {
        cell.w_hr =
            register_parameter("weight_hr" + sfx, empty({c.proj_size, c.hidden_size}, kFloat32));
      }
      cells_.push_back(cell);
    }
  }
  reset_parameters();
}

void RNNImplBase::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(static_cast<double>(cfg_.hidden_size));
  for (auto& p : all_weights()) init::uniform_(p, -stdv, stdv);
}

std::vector<Tensor> RNNImplBase::all_weights() const {
  std::vector<Tensor> out;
  for (const auto& c : cells_) {
    for (const Tensor* t : {&c.w_ih, &c.w_hh, &c.b_ih, &c.b_hh, &c.w_hr}) {
      if (t->defined()) out.push_back(*t);
    }
  }
  return out;
}

void RNNImplBase::pretty_print(std::ostream& os) const {
  os << std::boolalpha << "ember::nn::" << label_ << "(input_size=" << cfg_.input_size
     << ", hidden_size=" << cfg_.hidden_size << ", num_layers=" << cfg_.num_layers
     << ", bias=" << cfg_.bias << ", batch_first=" << cfg_.batch_first
     << ", dropout=" << cfg_.dropout << ", bidirectional=" << cfg_.bidirectional;
  if (cfg_.proj_size > 0) os << ", proj_size=" << cfg_.proj_size;
  if (cfg_.mode == RNNMode::RNN_RELU) os << ", nonlinearity=kReLU";
  os << ")";
}

Tensor RNNImplBase::run_direction(const Tensor& x, const Cell& cell, Tensor& h, Tensor& c,
                                  bool reverse) const {
  const int64_t T = x.size(0), B = x.size(1), H = cfg_.hidden_size;
  const int64_t G = cell.w_ih.size(0);
  const bool gru = cfg_.mode == RNNMode::GRU;
  // The input projection of every time step at once; b_hh folds in except for GRU's n gate.
  Tensor gi = x.reshape({T * B, x.size(2)}).matmul(cell.w_ih.t());
  if (cell.b_ih.defined()) gi = gru ? gi + cell.b_ih : gi + (cell.b_ih + cell.b_hh);
  const std::vector<Tensor> steps = unbind_steps(gi.view({T, B, G}));
  const Tensor w_hh_t = cell.w_hh.t();
  const Tensor w_hr_t = cell.w_hr.defined() ? cell.w_hr.t() : Tensor();
  std::vector<Tensor> outs(static_cast<size_t>(T));
  for (int64_t s = 0; s < T; ++s) {
    const int64_t t = reverse ? T - 1 - s : s;
    const Tensor& g = steps[static_cast<size_t>(t)];
    switch (cfg_.mode) {
      case RNNMode::RNN_TANH:
        h = g.addmm(h, w_hh_t).tanh();
        break;
      case RNNMode::RNN_RELU:
        h = g.addmm(h, w_hh_t).relu();
        break;
      case RNNMode::LSTM: {
        const Tensor gates = g.addmm(h, w_hh_t);
        const Tensor sg = gates.sigmoid();
        c = sg.narrow(1, H, H) * c + sg.narrow(1, 0, H) * gates.narrow(1, 2 * H, H).tanh();
        h = sg.narrow(1, 3 * H, H) * c.tanh();
        if (w_hr_t.defined()) h = h.matmul(w_hr_t);
        break;
      }
      case RNNMode::GRU: {
        const Tensor gh = cell.b_hh.defined() ? cell.b_hh.addmm(h, w_hh_t) : h.matmul(w_hh_t);
        const Tensor rz = (g.narrow(1, 0, 2 * H) + gh.narrow(1, 0, 2 * H)).sigmoid();
        const Tensor n =
            (g.narrow(1, 2 * H, H) + rz.narrow(1, 0, H) * gh.narrow(1, 2 * H, H)).tanh();
        h = n + rz.narrow(1, H, H) * (h - n);
        break;
      }
    }
    outs[static_cast<size_t>(t)] = h;
  }
  if (T == 0) return empty({0, B, h.size(-1)}, x.options());
  return stack(outs, 0);
}

std::tuple<Tensor, Tensor, Tensor> RNNImplBase::run(const Tensor& input, const Tensor& hx_in,
                                                    const Tensor& cx_in) {
  const bool lstm = cfg_.mode == RNNMode::LSTM;
  const char* op = label_;
  EMBER_CHECK(input.defined(), "[", op, "] input is an undefined tensor");
  EMBER_CHECK_VALUE(
      input.dim() == 2 || input.dim() == 3, "[", op, "] Expected input to be 2D or 3D, got ",
      input.dim(),
      cfg_.mode == RNNMode::LSTM || cfg_.mode == RNNMode::GRU ? "D instead" : "D tensor instead");
  const ScalarType wdt = cells_.front().w_ih.dtype();
  EMBER_CHECK_VALUE(input.dtype() == wdt, "[", op, "] input must have the type ", wdt,
                    ", got type ", input.dtype());
  const bool batched = input.dim() == 3;
  const int64_t batch_dim = cfg_.batch_first ? 0 : 1;
  Tensor x = batched ? input : input.unsqueeze(batch_dim);
  if (cfg_.batch_first) x = x.transpose(0, 1);
  EMBER_CHECK(x.size(-1) == cfg_.input_size, "[", op,
              "] input.size(-1) must be equal to input_size. Expected ", cfg_.input_size, ", got ",
              x.size(-1));
  const int64_t dirs = cfg_.bidirectional ? 2 : 1, B = x.size(1);
  const int64_t real_hidden = cfg_.proj_size > 0 ? cfg_.proj_size : cfg_.hidden_size;
  if (hx_in.defined()) {
    if (lstm) {
      EMBER_CHECK(hx_in.dim() == (batched ? 3 : 2) && cx_in.dim() == (batched ? 3 : 2), "[", op,
                  "] For ", batched ? "batched 3-D" : "unbatched 2-D",
                  " input, hx and cx should also be ", batched ? "3-D" : "2-D", " but got (",
                  hx_in.dim(), "-D, ", cx_in.dim(), "-D) tensors");
    } else {
      EMBER_CHECK(hx_in.dim() == (batched ? 3 : 2), "[", op, "] For ",
                  batched ? "batched 3-D" : "unbatched 2-D", " input, hx should also be ",
                  batched ? "3-D" : "2-D", " but got ", hx_in.dim(), "-D tensor");
    }
  }
  auto initial = [&](const Tensor& given, int64_t size, const char* what) {
    const std::vector<int64_t> expected{cfg_.num_layers * dirs, B, size};
    if (!given.defined()) return zeros(SymIntList(expected), x.options());
    Tensor t = batched ? given : given.unsqueeze(1);
    EMBER_CHECK(t.sizes() == expected, "[", op, "] Expected ", what, " size ",
                shape_tuple(expected), ", got ", shape_list(t.sizes()));
    EMBER_CHECK_VALUE(t.dtype() == x.dtype(), "[", op, "] hx must have the type ", x.dtype(),
                      ", got type ", t.dtype());
    return t;
  };
  const Tensor h0 = initial(hx_in, real_hidden, "hidden");
  const Tensor c0 = lstm ? initial(cx_in, cfg_.hidden_size, "hidden[1]") : Tensor();

  std::vector<Tensor> hn, cn;
  Tensor layer_in = x;
  for (int64_t layer = 0; layer < cfg_.num_layers; ++layer) {
    std::vector<Tensor> outs;
    for (int64_t d = 0; d < dirs; ++d) {
      const int64_t idx = layer * dirs + d;
      Tensor h = h0.select(0, idx), c = lstm ? c0.select(0, idx) : Tensor();
      outs.push_back(run_direction(layer_in, cells_[static_cast<size_t>(idx)], h, c, d == 1));
      hn.push_back(h);
      if (lstm) cn.push_back(c);
    }
    layer_in = dirs == 1 ? outs[0] : cat(outs, 2);
    if (cfg_.dropout > 0 && is_training() && layer + 1 < cfg_.num_layers) {
      layer_in = functional::dropout(layer_in, cfg_.dropout, true);
    }
  }
  Tensor out = cfg_.batch_first ? layer_in.transpose(0, 1) : layer_in;
  Tensor h_n = stack(hn, 0), c_n = lstm ? stack(cn, 0) : Tensor();
  if (!batched) {
    out = out.select(batch_dim, 0);
    h_n = h_n.select(1, 0);
    if (lstm) c_n = c_n.select(1, 0);
  }
  return {out, h_n, c_n};
}

}  // namespace detail

// ---- RNN / LSTM / GRU ----

RNNImpl::RNNImpl(const RNNOptions& o) : RNNImplBase("ember::nn::RNN", "RNN", {}), options(o) {
  reset();
}

void RNNImpl::reset() {
  const auto& o = options;
  reset_base({rnn_mode(o.nonlinearity(), "RNN"), o.input_size(), o.hidden_size(), o.num_layers(),
              o.bias(), o.batch_first(), o.dropout(), o.bidirectional(), 0});
}

std::tuple<Tensor, Tensor> RNNImpl::forward(const Tensor& input, Tensor hx) {
  auto [out, h, c] = run(input, hx, Tensor());
  return {out, h};
}

LSTMImpl::LSTMImpl(const LSTMOptions& o) : RNNImplBase("ember::nn::LSTM", "LSTM", {}), options(o) {
  reset();
}

void LSTMImpl::reset() {
  const auto& o = options;
  reset_base({detail::RNNMode::LSTM, o.input_size(), o.hidden_size(), o.num_layers(), o.bias(),
              o.batch_first(), o.dropout(), o.bidirectional(), o.proj_size()});
}

std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTMImpl::forward(
    const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx) {
  Tensor h0, c0;
  if (hx) {
    std::tie(h0, c0) = *hx;
    EMBER_CHECK(h0.defined() && c0.defined(), "[LSTM] hx must be a pair of defined tensors");
  }
  auto [out, h, c] = run(input, h0, c0);
  return {out, {h, c}};
}

GRUImpl::GRUImpl(const GRUOptions& o) : RNNImplBase("ember::nn::GRU", "GRU", {}), options(o) {
  reset();
}

void GRUImpl::reset() {
  const auto& o = options;
  reset_base({detail::RNNMode::GRU, o.input_size(), o.hidden_size(), o.num_layers(), o.bias(),
              o.batch_first(), o.dropout(), o.bidirectional(), 0});
}

std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor& input, Tensor hx) {
  auto [out, h, c] = run(input, hx, Tensor());
  return {out, h};
}

// ---- cells ----

namespace detail {

RNNCellImplBase::RNNCellImplBase(std::string name, const char* label, int64_t chunks)
    : Module(std::move(name)), label_(label), chunks_(chunks) {}

void RNNCellImplBase::reset_base(int64_t input_size, int64_t hidden_size, bool bias) {
  EMBER_CHECK_VALUE(input_size >= 0, "[", label_, "] input_size must be non-negative, got ",
                    input_size);
  EMBER_CHECK_VALUE(hidden_size > 0, "[", label_, "] hidden_size must be greater than zero");
  input_size_ = input_size;
  hidden_size_ = hidden_size;
  weight_ih = register_parameter("weight_ih", empty({chunks_ * hidden_size, input_size}, kFloat32));
  weight_hh =
      register_parameter("weight_hh", empty({chunks_ * hidden_size, hidden_size}, kFloat32));
  bias_ih = register_parameter("bias_ih",
                               bias ? empty({chunks_ * hidden_size}, kFloat32) : Tensor(), bias);
  bias_hh = register_parameter("bias_hh",
                               bias ? empty({chunks_ * hidden_size}, kFloat32) : Tensor(), bias);
  reset_parameters();
}

void RNNCellImplBase::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(static_cast<double>(hidden_size_));
  for (Tensor* p : {&weight_ih, &weight_hh, &bias_ih, &bias_hh}) {
    if (p->defined()) init::uniform_(*p, -stdv, stdv);
  }
}

void RNNCellImplBase::pretty_print(std::ostream& os) const {
  os << "ember::nn::" << label_ << "(" << input_size_ << ", " << hidden_size_;
  if (!bias_ih.defined()) os << ", bias=false";
  os << extra_repr_ << ")";
}

Tensor RNNCellImplBase::check_input(const Tensor& input) const {
  EMBER_CHECK(input.defined(), "[", label_, "] input is an undefined tensor");
  EMBER_CHECK_VALUE(input.dim() == 1 || input.dim() == 2, "[", label_,
                    "] Expected input to be 1D or 2D, got ", input.dim(), "D instead");
  EMBER_CHECK_VALUE(input.dtype() == weight_ih.dtype(), "[", label_, "] input must have the type ",
                    weight_ih.dtype(), ", got type ", input.dtype());
  Tensor x = input.dim() == 2 ? input : input.unsqueeze(0);
  EMBER_CHECK(x.size(1) == input_size_, "[", label_, "] input has inconsistent input_size: got ",
              x.size(1), " expected ", input_size_);
  return x;
}

Tensor RNNCellImplBase::check_hidden(const Tensor& input, const Tensor& hx, const char* what,
                                     const char* label) const {
  const int64_t batch = input.dim() == 2 ? input.size(0) : 1;
  if (!hx.defined()) return zeros({batch, hidden_size_}, input.options());
  EMBER_CHECK_VALUE(hx.dim() == 1 || hx.dim() == 2, "[", label_, "] Expected ", what,
                    " to be 1D or 2D, got ", hx.dim(), "D instead");
  EMBER_CHECK(hx.dim() == input.dim(), "[", label_, "] Expected ", what, " to be ", input.dim(),
              "D for ", input.dim(), "D input, got ", hx.dim(), "D");
  Tensor h = hx.dim() == 2 ? hx : hx.unsqueeze(0);
  EMBER_CHECK(h.size(0) == batch, "[", label_, "] Input batch size ", batch,
              " doesn't match hidden", label, " batch size ", h.size(0));
  EMBER_CHECK(h.size(1) == hidden_size_, "[", label_, "] hidden", label,
              " has inconsistent hidden_size: got ", h.size(1), ", expected ", hidden_size_);
  EMBER_CHECK_VALUE(h.dtype() == input.dtype(), "[", label_, "] hx must have the type ",
                    input.dtype(), ", got type ", h.dtype());
  return h;
}

}  // namespace detail

namespace {
Tensor cell_gates(const Tensor& x, const Tensor& w, const Tensor& b) {
  return b.defined() ? b.addmm(x, w.t()) : x.matmul(w.t());
}
}  // namespace

RNNCellImpl::RNNCellImpl(const RNNCellOptions& o)
    : RNNCellImplBase("ember::nn::RNNCell", "RNNCell", 1), options(o) {
  reset();
}

void RNNCellImpl::reset() {
  rnn_mode(options.nonlinearity(), "RNNCell");
  extra_repr_ = options.nonlinearity() == Nonlinearity::ReLU ? ", nonlinearity=kReLU" : "";
  reset_base(options.input_size(), options.hidden_size(), options.bias());
}

Tensor RNNCellImpl::forward(const Tensor& input, Tensor hx) {
  const Tensor x = check_input(input);
  const Tensor h = check_hidden(input, hx, "hidden", "0");
  Tensor pre = cell_gates(x, weight_ih, bias_ih) + cell_gates(h, weight_hh, bias_hh);
  Tensor out = options.nonlinearity() == Nonlinearity::ReLU ? pre.relu() : pre.tanh();
  return input.dim() == 2 ? out : out.select(0, 0);
}

LSTMCellImpl::LSTMCellImpl(const LSTMCellOptions& o)
    : RNNCellImplBase("ember::nn::LSTMCell", "LSTMCell", 4), options(o) {
  reset();
}

void LSTMCellImpl::reset() {
  reset_base(options.input_size(), options.hidden_size(), options.bias());
}

std::tuple<Tensor, Tensor> LSTMCellImpl::forward(const Tensor& input,
                                                 std::optional<std::tuple<Tensor, Tensor>> hx) {
  const Tensor x = check_input(input);
  Tensor h0, c0;
  if (hx) std::tie(h0, c0) = *hx;
  const Tensor h = check_hidden(input, h0, "hx[0]", "0");
  const Tensor c = check_hidden(input, c0, "hx[1]", "1");
  const int64_t H = options.hidden_size();
  const Tensor gates = cell_gates(x, weight_ih, bias_ih) + cell_gates(h, weight_hh, bias_hh);
  const Tensor sg = gates.sigmoid();
  Tensor c1 = sg.narrow(1, H, H) * c + sg.narrow(1, 0, H) * gates.narrow(1, 2 * H, H).tanh();
  Tensor h1 = sg.narrow(1, 3 * H, H) * c1.tanh();
  if (input.dim() == 1) return {h1.select(0, 0), c1.select(0, 0)};
  return {h1, c1};
}

GRUCellImpl::GRUCellImpl(const GRUCellOptions& o)
    : RNNCellImplBase("ember::nn::GRUCell", "GRUCell", 3), options(o) {
  reset();
}

void GRUCellImpl::reset() {
  reset_base(options.input_size(), options.hidden_size(), options.bias());
}

Tensor GRUCellImpl::forward(const Tensor& input, Tensor hx) {
  const Tensor x = check_input(input);
  const Tensor h = check_hidden(input, hx, "hidden", "0");
  const int64_t H = options.hidden_size();
  const Tensor gi = cell_gates(x, weight_ih, bias_ih), gh = cell_gates(h, weight_hh, bias_hh);
  const Tensor rz = (gi.narrow(1, 0, 2 * H) + gh.narrow(1, 0, 2 * H)).sigmoid();
  const Tensor n = (gi.narrow(1, 2 * H, H) + rz.narrow(1, 0, H) * gh.narrow(1, 2 * H, H)).tanh();
  Tensor out = n + rz.narrow(1, H, H) * (h - n);
  return input.dim() == 2 ? out : out.select(0, 0);
}

}  // namespace ember::nn
