#pragma once
// Recurrent modules (torch.nn.RNN, LSTM, GRU and their cells) with PyTorch's parameter names,
// gate order and initialisation:
//   weight_ih_l{k}[_reverse] (G, in), weight_hh_l{k}[_reverse] (G, H), bias_ih_l{k}, bias_hh_l{k}
//   (G), G = H (RNN), 4H (LSTM: i, f, g, o) or 3H (GRU: r, z, n); every parameter uniform in
//   ±1/sqrt(hidden_size).
// Input (seq, batch, feature), or (batch, seq, feature) with batch_first, or unbatched (seq,
// feature). Written with Ember ops (the input projection of the whole sequence is one matmul, then
// a loop over time), so autograd works through them.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "ember/nn/module.h"
#include "ember/nn/options/rnn.h"

namespace ember::nn {

namespace detail {

enum class RNNMode { RNN_TANH, RNN_RELU, LSTM, GRU };

/// What RNN, LSTM and GRU share: the parameters of every layer and direction, and the time loop.
class RNNImplBase : public Module {
 public:
  /// Every parameter uniform in ±1/sqrt(hidden_size), as PyTorch.
  void reset_parameters();
  /// The parameters in PyTorch's order (weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0, ...).
  std::vector<Tensor> all_weights() const;
  /// No-op kept for libtorch compatibility (cuDNN weight flattening).
  void flatten_parameters() {}
  void pretty_print(std::ostream& stream) const override;

 protected:
  struct Config {
    RNNMode mode;
    int64_t input_size, hidden_size, num_layers;
    bool bias, batch_first;
    double dropout;
    bool bidirectional;
    int64_t proj_size;
  };
  RNNImplBase(std::string name, const char* label, const Config& config);
  /// Validates the configuration and (re)creates the parameters.
  void reset_base(const Config& config);
  /// input 2-D or 3-D as given by the user; hx / cx undefined for zeros. Returns (output, h_n,
  /// c_n) with c_n undefined except for LSTM.
  std::tuple<Tensor, Tensor, Tensor> run(const Tensor& input, const Tensor& hx, const Tensor& cx);

 private:
  struct Cell {
    Tensor w_ih, w_hh, b_ih, b_hh, w_hr;
  };
  Tensor run_direction(const Tensor& x, const Cell& cell, Tensor& h, Tensor& c, bool reverse) const;
  const char* label_;
  Config cfg_;
  std::vector<Cell> cells_;  // layer-major, then direction
};

}  // namespace detail

class RNNImpl : public detail::RNNImplBase {
 public:
  RNNImpl(int64_t input_size, int64_t hidden_size) : RNNImpl(RNNOptions(input_size, hidden_size)) {}
  explicit RNNImpl(const RNNOptions& options);
  void reset();
  /// Returns (output, h_n): output (seq, batch, D * hidden), h_n (D * num_layers, batch, hidden).
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  RNNOptions options;
};
EMBER_MODULE(RNN);

class LSTMImpl : public detail::RNNImplBase {
 public:
  LSTMImpl(int64_t input_size, int64_t hidden_size)
      : LSTMImpl(LSTMOptions(input_size, hidden_size)) {}
  explicit LSTMImpl(const LSTMOptions& options);
  void reset();
  /// Returns (output, (h_n, c_n)); hx is (h_0, c_0), zeros when not given.
  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(
      const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx = std::nullopt);
  LSTMOptions options;
};
EMBER_MODULE(LSTM);

class GRUImpl : public detail::RNNImplBase {
 public:
  GRUImpl(int64_t input_size, int64_t hidden_size) : GRUImpl(GRUOptions(input_size, hidden_size)) {}
  explicit GRUImpl(const GRUOptions& options);
  void reset();
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  GRUOptions options;
};
EMBER_MODULE(GRU);

namespace detail {
/// What the cells share: weight_ih (chunks * H, in), weight_hh (chunks * H, H), bias_ih, bias_hh.
class RNNCellImplBase : public Module {
 public:
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;

 protected:
  RNNCellImplBase(std::string name, const char* label, int64_t chunks);
  void reset_base(int64_t input_size, int64_t hidden_size, bool bias);
  /// Checks input (1-D or 2-D) and a hidden state against it; returns the batched forms.
  Tensor check_input(const Tensor& input) const;
  Tensor check_hidden(const Tensor& input, const Tensor& hx, const char* what,
                      const char* label) const;
  std::string extra_repr_;

 private:
  const char* label_;
  int64_t chunks_, input_size_ = 0, hidden_size_ = 0;
};
}  // namespace detail

class RNNCellImpl : public detail::RNNCellImplBase {
 public:
  RNNCellImpl(int64_t input_size, int64_t hidden_size)
      : RNNCellImpl(RNNCellOptions(input_size, hidden_size)) {}
  explicit RNNCellImpl(const RNNCellOptions& options);
  void reset();
  /// h' = nonlinearity(x W_ih^T + b_ih + h W_hh^T + b_hh); hx zeros when undefined.
  Tensor forward(const Tensor& input, Tensor hx = {});
  RNNCellOptions options;
};
EMBER_MODULE(RNNCell);

class LSTMCellImpl : public detail::RNNCellImplBase {
 public:
  LSTMCellImpl(int64_t input_size, int64_t hidden_size)
      : LSTMCellImpl(LSTMCellOptions(input_size, hidden_size)) {}
  explicit LSTMCellImpl(const LSTMCellOptions& options);
  void reset();
  /// Returns (h', c').
  std::tuple<Tensor, Tensor> forward(const Tensor& input,
                                     std::optional<std::tuple<Tensor, Tensor>> hx = std::nullopt);
  LSTMCellOptions options;
};
EMBER_MODULE(LSTMCell);

class GRUCellImpl : public detail::RNNCellImplBase {
 public:
  GRUCellImpl(int64_t input_size, int64_t hidden_size)
      : GRUCellImpl(GRUCellOptions(input_size, hidden_size)) {}
  explicit GRUCellImpl(const GRUCellOptions& options);
  void reset();
  Tensor forward(const Tensor& input, Tensor hx = {});
  GRUCellOptions options;
};
EMBER_MODULE(GRUCell);

}  // namespace ember::nn
