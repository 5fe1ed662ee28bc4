#pragma once
// libtorch's serialize::OutputArchive / InputArchive over Ember's files (safetensors; load_from
// also reads the state dicts PyTorch's torch.save writes). Nested archives flatten into dotted
// names, so a module saved through an archive and one saved with save(module, path) give the
// same file.
//
//   torch::serialize::OutputArchive out;
//   model->save(out);                       // or out.write("weight", tensor)
//   out.save_to("model.safetensors");
//   torch::serialize::InputArchive in;
//   in.load_from("model.safetensors");
//   model->load(in);                        // or in.read("weight", tensor)
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "ember/core/ordered_dict.h"
#include "ember/core/tensor.h"

namespace ember::serialize {

class OutputArchive {
 public:
  /// Writes `tensor` under `key` (is_buffer is accepted for libtorch's signature; parameters and
  /// buffers are stored alike). ValueError for an undefined tensor or a key written twice.
  void write(const std::string& key, const Tensor& tensor, bool is_buffer = false);
  /// Writes every entry of `nested` under "key.<its name>".
  void write(const std::string& key, const OutputArchive& nested);
  /// A safetensors file (written atomically), or its bytes into a stream.
  void save_to(const std::string& filename) const;
  void save_to(std::ostream& stream) const;
  /// The entries written so far, in order.
  const OrderedDict<std::string, Tensor>& tensors() const { return entries_; }

 private:
  OrderedDict<std::string, Tensor> entries_;
};

class InputArchive {
 public:
  /// Reads a file that ember::load reads (safetensors, or a PyTorch state dict), moving the
  /// tensors to `device` when one is given.
  void load_from(const std::string& filename, std::optional<Device> device = std::nullopt);
  /// Reads safetensors bytes from a stream.
  void load_from(std::istream& stream, std::optional<Device> device = std::nullopt);
  /// The tensor under `key`: copied into `tensor` when it is defined (without recording
  /// autograd; the shapes must match, ValueError otherwise), else bound to it. IndexError when
  /// the archive has no such tensor.
  void read(const std::string& key, Tensor& tensor, bool is_buffer = false);
  /// Like read, but returns false instead of raising when the key is absent.
  bool try_read(const std::string& key, Tensor& tensor, bool is_buffer = false);
  /// The entries under "key." (the names without that prefix); IndexError when there are none.
  void read(const std::string& key, InputArchive& nested);
  /// The names of the archive's tensors, in the file's order.
  std::vector<std::string> keys() const;

 private:
  OrderedDict<std::string, Tensor> entries_;
};

}  // namespace ember::serialize
