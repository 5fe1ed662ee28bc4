#pragma once
// Normalization modules: BatchNorm1d/2d/3d, InstanceNorm1d/2d/3d, LayerNorm, RMSNorm, GroupNorm,
// with PyTorch's parameter and buffer names (weight, bias, running_mean, running_var,
// num_batches_tracked) so that state_dict keys match.
//   nn::BatchNorm2d bn(nn::BatchNorm2dOptions(16).momentum(0.01));
//   bn->eval();  // normalises with the running statistics
#include <cstdint>
#include <string>

#include "ember/nn/module.h"
#include "ember/nn/options/normalization.h"

namespace ember::nn {

/// Shared state of batch and instance norm: weight = 1, bias = 0 (affine), running_mean = 0,
/// running_var = 1 and num_batches_tracked = 0 (int64, track_running_stats).
template <typename Options>
class NormImplBase : public Module {
 public:
  NormImplBase(const Options& options_, std::string name);
  void reset();
  void reset_running_stats();
  void reset_parameters();
  Options options;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;
};

/// Batch normalisation over (N, C, *) with batch statistics in training (updating the running
/// statistics: momentum, or a cumulative average when momentum is std::nullopt) and running
/// statistics in evaluation (when tracked).
class BatchNormImplBase : public NormImplBase<BatchNormOptions> {
 public:
  BatchNormImplBase(const BatchNormOptions& options_, int64_t dims);
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

 private:
  int64_t dims_;  // 1, 2 or 3
};

class BatchNorm1dImpl : public BatchNormImplBase {
 public:
  /// input (N, C) or (N, C, L).
  explicit BatchNorm1dImpl(const BatchNorm1dOptions& options_) : BatchNormImplBase(options_, 1) {}
  explicit BatchNorm1dImpl(int64_t num_features)
      : BatchNorm1dImpl(BatchNormOptions(num_features)) {}
};
EMBER_MODULE(BatchNorm1d);

class BatchNorm2dImpl : public BatchNormImplBase {
 public:
  /// input (N, C, H, W).
  explicit BatchNorm2dImpl(const BatchNorm2dOptions& options_) : BatchNormImplBase(options_, 2) {}
  explicit BatchNorm2dImpl(int64_t num_features)
      : BatchNorm2dImpl(BatchNormOptions(num_features)) {}
};
EMBER_MODULE(BatchNorm2d);

class BatchNorm3dImpl : public BatchNormImplBase {
 public:
  /// input (N, C, D, H, W).
  explicit BatchNorm3dImpl(const BatchNorm3dOptions& options_) : BatchNormImplBase(options_, 3) {}
  explicit BatchNorm3dImpl(int64_t num_features)
      : BatchNorm3dImpl(BatchNormOptions(num_features)) {}
};
EMBER_MODULE(BatchNorm3d);

/// Instance normalisation: statistics per sample and channel; unbatched inputs (C, *) allowed.
/// Defaults: affine = false, track_running_stats = false (as PyTorch).
class InstanceNormImplBase : public NormImplBase<InstanceNormOptions> {
 public:
  InstanceNormImplBase(const InstanceNormOptions& options_, int64_t dims);
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

 private:
  int64_t dims_;
};

class InstanceNorm1dImpl : public InstanceNormImplBase {
 public:
  explicit InstanceNorm1dImpl(const InstanceNorm1dOptions& options_)
      : InstanceNormImplBase(options_, 1) {}
  explicit InstanceNorm1dImpl(int64_t num_features)
      : InstanceNorm1dImpl(InstanceNormOptions(num_features)) {}
};
EMBER_MODULE(InstanceNorm1d);

class InstanceNorm2dImpl : public InstanceNormImplBase {
 public:
  explicit InstanceNorm2dImpl(const InstanceNorm2dOptions& options_)
      : InstanceNormImplBase(options_, 2) {}
  explicit InstanceNorm2dImpl(int64_t num_features)
      : InstanceNorm2dImpl(InstanceNormOptions(num_features)) {}
};
EMBER_MODULE(InstanceNorm2d);

class InstanceNorm3dImpl : public InstanceNormImplBase {
 public:
  explicit InstanceNorm3dImpl(const InstanceNorm3dOptions& options_)
      : InstanceNormImplBase(options_, 3) {}
  explicit InstanceNorm3dImpl(int64_t num_features)
      : InstanceNorm3dImpl(InstanceNormOptions(num_features)) {}
};
EMBER_MODULE(InstanceNorm3d);

/// Normalises over the trailing normalized_shape dims; weight = 1 and bias = 0 of that shape.
class LayerNormImpl : public Module {
 public:
  LayerNormImpl(std::vector<int64_t> normalized_shape)  // NOLINT
      : LayerNormImpl(LayerNormOptions(std::move(normalized_shape))) {}
  explicit LayerNormImpl(const LayerNormOptions& options_);
  void reset();
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  LayerNormOptions options;
  Tensor weight, bias;
};
EMBER_MODULE(LayerNorm);

/// x / sqrt(mean(x^2) + eps) * weight over the trailing dims; weight = 1.
class RMSNormImpl : public Module {
 public:
  RMSNormImpl(std::vector<int64_t> normalized_shape)  // NOLINT
      : RMSNormImpl(RMSNormOptions(std::move(normalized_shape))) {}
  explicit RMSNormImpl(const RMSNormOptions& options_);
  void reset();
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  RMSNormOptions options;
  Tensor weight;
};
EMBER_MODULE(RMSNorm);

/// Statistics over groups of num_channels / num_groups channels; weight = 1, bias = 0.
class GroupNormImpl : public Module {
 public:
  GroupNormImpl(int64_t num_groups, int64_t num_channels)
      : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}
  explicit GroupNormImpl(const GroupNormOptions& options_);
  void reset();
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  GroupNormOptions options;
  Tensor weight, bias;
};
EMBER_MODULE(GroupNorm);

}  // namespace ember::nn
