#pragma once
// PyTorch's torch.utils.data.Dataset and TensorDataset. The libtorch-style datasets
// (torch::data::datasets::...) are in ember/data/datasets.h.
#include <cstdint>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/data/dataloader_options.h"

namespace ember::data {

/// A map-style dataset: size() items, each a Sample (one tensor per field). With
/// DataLoaderOptions::workers > 0, get() is called from several threads at once.
///   class Squares : public ember::data::Dataset {
///     int64_t size() const override { return 10; }
///     Sample get(int64_t i) override { return {ember::tensor(i * i)}; }
///   };
class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual int64_t size() const = 0;
  virtual Sample get(int64_t index) = 0;
};

/// torch.utils.data.TensorDataset: item i is {t[i] for t in tensors}; every tensor is indexed
/// along its first dimension. ValueError "Size mismatch between tensors" when their first
/// dimensions differ; IndexError for an index out of range (negative indices count from the end).
class TensorDataset : public Dataset {
 public:
  explicit TensorDataset(std::vector<Tensor> tensors);
  int64_t size() const override;
  Sample get(int64_t index) override;
  const std::vector<Tensor>& tensors() const { return tensors_; }

 private:
  std::vector<Tensor> tensors_;
};

/// torch.utils.data.default_collate for tuples of tensors: field j of the batch is
/// stack([s[j] for s in samples]). RuntimeError when the samples have different numbers of fields
/// (or the batch is empty); stack's errors for tensors of different shapes.
Sample default_collate(std::vector<Sample> samples);

}  // namespace ember::data
