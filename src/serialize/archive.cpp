// libtorch's OutputArchive / InputArchive and Module::save / Module::load on top of Ember's files.
#include "ember/serialize/archive.h"

#include <istream>
#include <iterator>
#include <ostream>

#include "ember/autograd.h"
#include "ember/nn/module.h"
#include "ember/serialize.h"
#include "ops/util.h"

namespace ember::serialize {

void OutputArchive::write(const std::string& key, const Tensor& tensor, bool) {
  EMBER_CHECK_VALUE(tensor.defined(), "[OutputArchive.write] the tensor '", key, "' is undefined");
  EMBER_CHECK_VALUE(!entries_.contains(key), "[OutputArchive.write] '", key,
                    "' was already written");
  entries_.insert(key, tensor);
}

void OutputArchive::write(const std::string& key, const OutputArchive& nested) {
  for (const auto& item : nested.entries_) write(key + "." + item.key(), item.value());
}

void OutputArchive::save_to(const std::string& filename) const { ember::save(entries_, filename); }

void OutputArchive::save_to(std::ostream& stream) const {
  const std::string bytes = safetensors::serialize(entries_);
  stream.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  EMBER_CHECK(stream.good(), "[OutputArchive.save_to] writing to the stream failed");
}

namespace {
OrderedDict<std::string, Tensor> on_device(OrderedDict<std::string, Tensor> entries,
                                           const std::optional<Device>& device) {
  if (device) {
    for (auto& item : entries) item.value() = item.value().to(*device);
  }
  return entries;
}
}  // namespace

void InputArchive::load_from(const std::string& filename, std::optional<Device> device) {
  entries_ = on_device(ember::load(filename), device);
}

void InputArchive::load_from(std::istream& stream, std::optional<Device> device) {
  const std::string bytes((std::istreambuf_iterator<char>(stream)),
                          std::istreambuf_iterator<char>());
  entries_ = on_device(safetensors::deserialize(bytes), device);
}

bool InputArchive::try_read(const std::string& key, Tensor& tensor, bool) {
  const Tensor* stored = entries_.find(key);
  if (!stored) return false;
  if (!tensor.defined()) {
    tensor = *stored;
    return true;
  }
  EMBER_CHECK_VALUE(tensor.sizes() == stored->sizes(), "[InputArchive.read] '", key, "' has shape ",
                    ops::shape_str(stored->sizes()),
                    " in the archive, but the tensor read into has shape ",
                    ops::shape_str(tensor.sizes()));
  NoGradGuard no_grad;  // loading values is not part of any graph
  tensor.copy_(*stored);
  return true;
}

void InputArchive::read(const std::string& key, Tensor& tensor, bool is_buffer) {
  EMBER_CHECK_INDEX(try_read(key, tensor, is_buffer), "[InputArchive.read] No such serialized ",
                    is_buffer ? "buffer" : "tensor", " '", key, "'");
}

void InputArchive::read(const std::string& key, InputArchive& nested) {
  const std::string prefix = key + ".";
  OrderedDict<std::string, Tensor> found;
  for (const auto& item : entries_) {
    if (item.key().starts_with(prefix))
      found.insert(item.key().substr(prefix.size()), item.value());
  }
  EMBER_CHECK_INDEX(!found.is_empty(), "[InputArchive.read] No such serialized submodule: '", key,
                    "'");
  nested.entries_ = std::move(found);
}

std::vector<std::string> InputArchive::keys() const {
  std::vector<std::string> out;
  for (const auto& item : entries_) out.push_back(item.key());
  return out;
}

}  // namespace ember::serialize

namespace ember::nn {

void Module::save(serialize::OutputArchive& archive) const {
  for (const auto& p : named_parameters(/*recurse=*/false)) archive.write(p.key(), p.value());
  for (const auto& b : named_buffers(/*recurse=*/false)) archive.write(b.key(), b.value(), true);
  for (const auto& child : named_children()) {
    serialize::OutputArchive nested;
    child.value()->save(nested);
    archive.write(child.key(), nested);
  }
}

void Module::load(serialize::InputArchive& archive) {
  for (auto& p : named_parameters(/*recurse=*/false)) archive.read(p.key(), p.value());
  for (auto& b : named_buffers(/*recurse=*/false)) archive.read(b.key(), b.value(), true);
  for (const auto& child : named_children()) {
    // A submodule without tensors (ReLU, Functional) leaves no entries to find.
    if (child.value()->parameters().empty() && child.value()->buffers().empty()) continue;
    serialize::InputArchive nested;
    archive.read(child.key(), nested);
    child.value()->load(nested);
  }
}

}  // namespace ember::nn
