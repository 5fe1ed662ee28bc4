#pragma once
// torch::data::Example: one (data, target) pair of the libtorch-style data API.
#include <utility>

#include "ember/core/tensor.h"

namespace ember::data {

namespace example {
/// Marks an Example without a target.
using NoTarget = void;
}  // namespace example

/// A single training example: `data` and `target`, as libtorch's torch::data::Example.
template <typename Data = Tensor, typename Target = Tensor>
struct Example {
  using DataType = Data;
  using TargetType = Target;

  Example() = default;
  Example(Data data, Target target) : data(std::move(data)), target(std::move(target)) {}

  Data data;
  Target target;
};

/// An Example with only data (torch::data::TensorExample is Example<Tensor, NoTarget>).
template <typename Data>
struct Example<Data, example::NoTarget> {
  using DataType = Data;
  using TargetType = example::NoTarget;

  Example() = default;
  Example(Data data) : data(std::move(data)) {}  // NOLINT: implicit, as libtorch
  operator Data&() { return data; }              // NOLINT
  operator const Data&() const { return data; }  // NOLINT

  Data data;
};

using TensorExample = Example<Tensor, example::NoTarget>;

}  // namespace ember::data
