#pragma once
// libtorch's torch::data::datasets: CRTP dataset bases, MapDataset (dataset.map(transform)),
// MNIST and TensorDataset.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/data/example.h"

namespace ember::data::datasets {

template <typename S, typename T>
class MapDataset;
template <typename D, typename T>
MapDataset<D, T> map(D dataset, T transform);

namespace detail {
template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};
}  // namespace detail

/// A dataset that yields whole batches for a batch request (a list of indices by default).
template <typename Self, typename Batch = std::vector<Example<>>,
          typename BatchRequest = std::vector<size_t>>
class BatchDataset {
 public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;
  static constexpr bool is_stateful = detail::is_optional<BatchType>::value;

  virtual ~BatchDataset() = default;
  virtual Batch get_batch(BatchRequest request) = 0;
  /// The number of examples, or nullopt for an unsized dataset.
  virtual std::optional<size_t> size() const = 0;

  /// A MapDataset applying `transform` to this dataset's batches (a copy of the dataset).
  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) & {
    return datasets::map(static_cast<Self&>(*this), std::move(transform));
  }
  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) && {
    return datasets::map(std::move(static_cast<Self&>(*this)), std::move(transform));
  }
};

/// A random-access dataset: get(index) gives one example; get_batch calls get for each index.
///   struct Squares : torch::data::datasets::Dataset<Squares> {
///     torch::data::Example<> get(size_t i) override { ... }
///     std::optional<size_t> size() const override { return 10; }
///   };
template <typename Self, typename SingleExample = Example<>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
 public:
  using ExampleType = SingleExample;
  virtual ExampleType get(size_t index) = 0;
  std::vector<ExampleType> get_batch(std::vector<size_t> indices) override {
    std::vector<ExampleType> batch;
    batch.reserve(indices.size());
    for (const size_t i : indices) batch.push_back(get(i));
    return batch;
  }
};

/// `dataset` with `transform` applied to every batch it yields.
template <typename SourceDataset, typename AppliedTransform>
class MapDataset : public BatchDataset<MapDataset<SourceDataset, AppliedTransform>,
                                       typename AppliedTransform::OutputBatchType,
                                       typename SourceDataset::BatchRequestType> {
 public:
  using DatasetType = SourceDataset;
  using TransformType = AppliedTransform;
  using BatchRequestType = typename SourceDataset::BatchRequestType;
  using OutputBatchType = typename AppliedTransform::OutputBatchType;

  MapDataset(DatasetType dataset, TransformType transform)
      : dataset_(std::move(dataset)), transform_(std::move(transform)) {}

  OutputBatchType get_batch(BatchRequestType indices) override {
    return transform_.apply_batch(dataset_.get_batch(std::move(indices)));
  }
  std::optional<size_t> size() const override { return dataset_.size(); }
  const SourceDataset& dataset() const noexcept { return dataset_; }
  const AppliedTransform& transform() const noexcept { return transform_; }

 private:
  SourceDataset dataset_;
  AppliedTransform transform_;
};

template <typename D, typename T>
MapDataset<D, T> map(D dataset, T transform) {
  static_assert(!D::is_stateful, "stateful datasets are not supported yet");
  static_assert(std::is_same_v<typename D::BatchType, typename T::InputBatchType>,
                "BatchType type of dataset does not match input type of transform");
  return {std::move(dataset), std::move(transform)};
}

/// The MNIST digits (or a drop-in such as Fashion-MNIST) from the IDX files in `root`:
/// train-images-idx3-ubyte / train-labels-idx1-ubyte (Mode::kTrain) or t10k-images-idx3-ubyte /
/// t10k-labels-idx1-ubyte (Mode::kTest), each possibly gzip-compressed with a ".gz" suffix.
/// Images are float32 [N, 1, rows, cols] scaled to [0, 1]; targets int64 [N]. Unlike libtorch,
/// any number of images (and any image size) is accepted, as long as the two files agree.
class MNIST : public Dataset<MNIST> {
 public:
  enum class Mode { kTrain, kTest };
  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain);
  Example<> get(size_t index) override;
  std::optional<size_t> size() const override;
  bool is_train() const noexcept { return train_; }
  const Tensor& images() const { return images_; }
  const Tensor& targets() const { return targets_; }

 private:
  Tensor images_, targets_;
  bool train_;
};

/// libtorch's TensorDataset: example i is tensor[i] (data only).
class TensorDataset : public Dataset<TensorDataset, TensorExample> {
 public:
  explicit TensorDataset(const std::vector<Tensor>& tensors);
  explicit TensorDataset(Tensor tensor);
  TensorExample get(size_t index) override;
  std::optional<size_t> size() const override;

  Tensor tensor;
};

}  // namespace ember::data::datasets
