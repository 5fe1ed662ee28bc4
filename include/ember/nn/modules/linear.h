#pragma once
// Identity, Linear, Bilinear, Flatten, Unflatten.
#include <cstdint>
#include <vector>

#include "ember/nn/arg.h"
#include "ember/nn/module.h"

namespace ember::nn {

class IdentityImpl : public Module {
 public:
  IdentityImpl() : Module("ember::nn::Identity") {}
  Tensor forward(const Tensor& x) { return x; }
};
EMBER_MODULE(Identity);

struct LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features)
      : in_features_(in_features), out_features_(out_features) {}
  EMBER_ARG(int64_t, in_features);
  EMBER_ARG(int64_t, out_features);
  EMBER_ARG(bool, bias) = true;
};

/// y = x W^T + b, W: [out, in]; initialised as PyTorch (kaiming_uniform_(a=sqrt(5)), bias
/// uniform in ±1/sqrt(in)).
class LinearImpl : public Module {
 public:
  LinearImpl(int64_t in_features, int64_t out_features)
      : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options);
  void reset();
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  LinearOptions options;
  Tensor weight, bias;
};
EMBER_MODULE(Linear);

struct BilinearOptions {
  BilinearOptions(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : in1_features_(in1_features), in2_features_(in2_features), out_features_(out_features) {}
  EMBER_ARG(int64_t, in1_features);
  EMBER_ARG(int64_t, in2_features);
  EMBER_ARG(int64_t, out_features);
  EMBER_ARG(bool, bias) = true;
};

/// y_k = x1^T W_k x2 + b_k, W: [out, in1, in2]; weight and bias uniform in ±1/sqrt(in1) as
/// PyTorch.
class BilinearImpl : public Module {
 public:
  BilinearImpl(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : BilinearImpl(BilinearOptions(in1_features, in2_features, out_features)) {}
  explicit BilinearImpl(const BilinearOptions& options);
  void reset();
  void reset_parameters();
  Tensor forward(const Tensor& input1, const Tensor& input2);
  void pretty_print(std::ostream& stream) const override;
  BilinearOptions options;
  Tensor weight, bias;
};
EMBER_MODULE(Bilinear);

struct FlattenOptions {
  EMBER_ARG(int64_t, start_dim) = 1;
  EMBER_ARG(int64_t, end_dim) = -1;
};

class FlattenImpl : public Module {
 public:
  explicit FlattenImpl(const FlattenOptions& options = {})
      : Module("ember::nn::Flatten"), options(options) {}
  Tensor forward(const Tensor& x) { return x.flatten(options.start_dim(), options.end_dim()); }
  FlattenOptions options;
};
EMBER_MODULE(Flatten);

struct UnflattenOptions {
  UnflattenOptions(int64_t dim, std::vector<int64_t> sizes) : dim_(dim), sizes_(std::move(sizes)) {}
  EMBER_ARG(int64_t, dim);
  EMBER_ARG(std::vector<int64_t>, sizes);
};

class UnflattenImpl : public Module {
 public:
  UnflattenImpl(int64_t dim, std::vector<int64_t> sizes)
      : UnflattenImpl(UnflattenOptions(dim, std::move(sizes))) {}
  explicit UnflattenImpl(const UnflattenOptions& options)
      : Module("ember::nn::Unflatten"), options(options) {}
  Tensor forward(const Tensor& x) {
    return x.unflatten(options.dim(), SymIntList(options.sizes()));
  }
  UnflattenOptions options;
};
EMBER_MODULE(Unflatten);

}  // namespace ember::nn
