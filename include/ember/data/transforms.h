#pragma once
// libtorch's torch::data::transforms: per-example and per-batch transforms applied with
// dataset.map(...). Normalize and the Lambdas change examples; Stack collates a batch.
#include <functional>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/data/example.h"
#include "ember/ops/factory.h"
#include "ember/ops/shape.h"

namespace ember::data::transforms {

/// Maps a whole batch to another batch.
template <typename InputBatch, typename OutputBatch>
class BatchTransform {
 public:
  using InputBatchType = InputBatch;
  using OutputBatchType = OutputBatch;
  virtual ~BatchTransform() = default;
  virtual OutputBatch apply_batch(InputBatch input_batch) = 0;
};

/// Maps each example of a batch (std::vector<Input>) on its own.
template <typename Input, typename Output>
class Transform : public BatchTransform<std::vector<Input>, std::vector<Output>> {
 public:
  using InputType = Input;
  using OutputType = Output;
  virtual OutputType apply(InputType input) = 0;
  std::vector<Output> apply_batch(std::vector<Input> input_batch) override {
    std::vector<Output> output_batch;
    output_batch.reserve(input_batch.size());
    for (auto& input : input_batch) output_batch.push_back(apply(std::move(input)));
    return output_batch;
  }
};

/// A BatchTransform from a function.
template <typename Input, typename Output = Input>
class BatchLambda : public BatchTransform<Input, Output> {
 public:
  using typename BatchTransform<Input, Output>::InputBatchType;
  using typename BatchTransform<Input, Output>::OutputBatchType;
  using FunctionType = std::function<OutputBatchType(InputBatchType)>;
  explicit BatchLambda(FunctionType function) : function_(std::move(function)) {}
  OutputBatchType apply_batch(InputBatchType input_batch) override {
    return function_(std::move(input_batch));
  }

 private:
  FunctionType function_;
};

/// A Transform from a function on one example:
///   dataset.map(Lambda<Example<>>([](Example<> e) { e.data = e.data * 2; return e; }))
template <typename Input, typename Output = Input>
class Lambda : public Transform<Input, Output> {
 public:
  using typename Transform<Input, Output>::InputType;
  using typename Transform<Input, Output>::OutputType;
  using FunctionType = std::function<Output(Input)>;
  explicit Lambda(FunctionType function) : function_(std::move(function)) {}
  OutputType apply(InputType input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

/// A collation turns a batch of examples into one example.
template <typename T, typename BatchType = std::vector<T>>
using Collation = BatchTransform<BatchType, T>;
/// A collation from a function.
template <typename T, typename BatchType = std::vector<T>>
using Collate = BatchLambda<BatchType, T>;

/// Stacks the examples' data (and targets) along a new first dimension.
template <typename T = Example<>>
struct Stack;

template <>
struct Stack<Example<>> : public Collation<Example<>> {
  Example<> apply_batch(std::vector<Example<>> examples) override {
    std::vector<Tensor> data, targets;
    data.reserve(examples.size());
    targets.reserve(examples.size());
    for (auto& example : examples) {
      data.push_back(std::move(example.data));
      targets.push_back(std::move(example.target));
    }
    return {ember::stack(data), ember::stack(targets)};
  }
};

template <>
struct Stack<TensorExample> : public Collation<TensorExample> {
  TensorExample apply_batch(std::vector<TensorExample> examples) override {
    std::vector<Tensor> data;
    data.reserve(examples.size());
    for (auto& example : examples) data.push_back(std::move(example.data));
    return ember::stack(data);
  }
};

/// A Transform of Example<Tensor, Target> that changes only the data tensor.
template <typename Target = Tensor>
class TensorTransform : public Transform<Example<Tensor, Target>, Example<Tensor, Target>> {
 public:
  using E = Example<Tensor, Target>;
  using typename Transform<E, E>::InputType;
  using typename Transform<E, E>::OutputType;
  virtual Tensor operator()(Tensor input) = 0;
  OutputType apply(InputType input) override {
    input.data = (*this)(std::move(input.data));
    return input;
  }
};

/// A TensorTransform from a function on the data tensor.
template <typename Target = Tensor>
class TensorLambda : public TensorTransform<Target> {
 public:
  using FunctionType = std::function<Tensor(Tensor)>;
  explicit TensorLambda(FunctionType function) : function_(std::move(function)) {}
  Tensor operator()(Tensor input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

/// (data - mean) / stddev. mean and stddev become 1-d tensors of the default float dtype that
/// broadcast against the data, as libtorch's (a single value applies to every element; several
/// values line up with the data's last dimension).
///   MNIST(root).map(Normalize<>(0.1307, 0.3081))
template <typename Target = Tensor>
struct Normalize : public TensorTransform<Target> {
  Normalize(double mean, double stddev)
      : Normalize(std::vector<double>{mean}, std::vector<double>{stddev}) {}
  Normalize(const std::vector<double>& mean, const std::vector<double>& stddev)
      : mean(ember::tensor(mean)), stddev(ember::tensor(stddev)) {}
  Tensor operator()(Tensor input) override { return input.sub(mean).div(stddev); }

  Tensor mean, stddev;
};

}  // namespace ember::data::transforms
