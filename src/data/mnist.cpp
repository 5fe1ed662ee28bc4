// libtorch's MNIST and TensorDataset datasets (include/ember/data/datasets.h).
#include <filesystem>

#include "ember/data/datasets.h"
#include "ember/data/readers.h"
#include "ember/ops/shape.h"

namespace ember::data::datasets {

namespace {

// root/name, or root/name.gz when only the compressed file exists.
std::string find_file(const std::string& root, const char* name, const char* what) {
  const std::filesystem::path plain = std::filesystem::path(root) / name;
  std::error_code ec;
  if (std::filesystem::exists(plain, ec)) return plain.string();
  const std::string gz = plain.string() + ".gz";
  if (std::filesystem::exists(gz, ec)) return gz;
  EMBER_THROW(RuntimeError, "[MNIST] Error opening ", what, " file at ", plain.string(), " (nor ",
              gz, ")");
}

Tensor read_images(const std::string& root, bool train) {
  const std::string path =
      find_file(root, train ? "train-images-idx3-ubyte" : "t10k-images-idx3-ubyte", "images");
  Tensor images = read_idx(path);
  EMBER_CHECK_VALUE(images.dtype() == kUInt8 && images.dim() == 3, "[MNIST] '", path,
                    "': expected uint8 images with 3 dimensions (magic number 0x00000803), got ",
                    dtype_name(images.dtype()), " data with ", images.dim(), " dimensions");
  return images.unsqueeze(1).to(kFloat32).div_(255);
}

Tensor read_targets(const std::string& root, bool train) {
  const std::string path =
      find_file(root, train ? "train-labels-idx1-ubyte" : "t10k-labels-idx1-ubyte", "targets");
  Tensor targets = read_idx(path);
  EMBER_CHECK_VALUE(targets.dtype() == kUInt8 && targets.dim() == 1, "[MNIST] '", path,
                    "': expected uint8 labels with 1 dimension (magic number 0x00000801), got ",
                    dtype_name(targets.dtype()), " data with ", targets.dim(), " dimensions");
  return targets.to(kInt64);
}

}  // namespace

MNIST::MNIST(const std::string& root, Mode mode)
    : images_(read_images(root, mode == Mode::kTrain)),
      targets_(read_targets(root, mode == Mode::kTrain)),
      train_(mode == Mode::kTrain) {
  EMBER_CHECK_VALUE(images_.size(0) == targets_.size(0), "[MNIST] the images file in '", root,
                    "' has ", images_.size(0), " images but the labels file has ", targets_.size(0),
                    " labels");
}

Example<> MNIST::get(size_t index) {
  const auto n = static_cast<size_t>(images_.size(0));
  EMBER_CHECK_INDEX(index < n, "[MNIST] index ", index, " is out of bounds for size ", n);
  const auto i = static_cast<int64_t>(index);
  return {images_.select(0, i), targets_.select(0, i)};
}

std::optional<size_t> MNIST::size() const { return static_cast<size_t>(images_.size(0)); }

TensorDataset::TensorDataset(const std::vector<Tensor>& tensors)
    : TensorDataset(ember::stack(tensors)) {}

TensorDataset::TensorDataset(Tensor t) : tensor(std::move(t)) {
  EMBER_CHECK_INDEX(tensor.defined() && tensor.dim() > 0,
                    "[TensorDataset] expected a tensor with at least one dimension");
}

TensorExample TensorDataset::get(size_t index) {
  const auto n = static_cast<size_t>(tensor.size(0));
  EMBER_CHECK_INDEX(index < n, "[TensorDataset] index ", index, " is out of bounds for size ", n);
  return tensor.select(0, static_cast<int64_t>(index));
}

std::optional<size_t> TensorDataset::size() const { return static_cast<size_t>(tensor.size(0)); }

}  // namespace ember::data::datasets
