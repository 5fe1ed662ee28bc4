// torch.utils.data.TensorDataset and default_collate (include/ember/data/dataset.h).
#include "ember/data/dataset.h"

#include "ember/ops/shape.h"

namespace ember::data {

TensorDataset::TensorDataset(std::vector<Tensor> tensors) : tensors_(std::move(tensors)) {
  EMBER_CHECK_VALUE(!tensors_.empty(), "[TensorDataset] expected at least one tensor");
  for (size_t i = 0; i < tensors_.size(); ++i) {
    EMBER_CHECK_VALUE(tensors_[i].defined(), "[TensorDataset] tensor ", i, " is undefined");
    EMBER_CHECK_INDEX(tensors_[i].dim() > 0, "[TensorDataset] tensor ", i,
                      " is 0-dimensional; every tensor is indexed along its first dimension");
    EMBER_CHECK_VALUE(tensors_[i].size(0) == tensors_[0].size(0),
                      "[TensorDataset] Size mismatch between tensors (tensor 0 has ",
                      tensors_[0].size(0), " rows, tensor ", i, " has ", tensors_[i].size(0), ")");
  }
}

int64_t TensorDataset::size() const { return tensors_[0].size(0); }

Sample TensorDataset::get(int64_t index) {
  const int64_t n = size();
  EMBER_CHECK_INDEX(index >= -n && index < n, "[TensorDataset] index ", index,
                    " is out of bounds for dimension 0 with size ", n);
  Sample sample;
  sample.reserve(tensors_.size());
  for (const Tensor& t : tensors_) sample.push_back(t.select(0, index));
  return sample;
}

Sample default_collate(std::vector<Sample> samples) {
  EMBER_CHECK(!samples.empty(), "[default_collate] expected a non-empty batch");
  const size_t fields = samples[0].size();
  for (const Sample& s : samples)
    EMBER_CHECK(s.size() == fields,
                "[default_collate] each element in list of batch should be of equal size");
  Sample batch;
  batch.reserve(fields);
  std::vector<Tensor> column(samples.size());
  for (size_t j = 0; j < fields; ++j) {
    for (size_t i = 0; i < samples.size(); ++i) column[i] = std::move(samples[i][j]);
    batch.push_back(ember::stack(column));
  }
  return batch;
}

}  // namespace ember::data
