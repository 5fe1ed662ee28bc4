#pragma once
// Saving and loading tensors. Files are safetensors (https://github.com/huggingface/safetensors):
// an 8-byte little-endian header length N, N bytes of JSON header
//   {"__metadata__": {"k": "v"}, "name": {"dtype": "F32", "shape": [2, 3],
//    "data_offsets": [begin, end]}, ...}
// padded with spaces to a multiple of 8 bytes, then the raw little-endian tensor bytes.
// Files written here load in Python with safetensors.torch.load_file, and the other way round.
//
//   ember::StateDict sd;
//   sd.insert("weight", ember::randn({4, 4}));
//   ember::save(sd, "model.safetensors");
//   auto back = ember::load("model.safetensors");
//   ember::save(optimizer, "opt.safetensors");   // anything with state_dict()/load_state_dict()
//   ember::load(optimizer, "opt.safetensors");
#include <concepts>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ember/core/ordered_dict.h"
#include "ember/core/tensor.h"
#include "ember/serialize/archive.h"
#include "ember/serialize/pickle.h"

namespace ember {

/// Named tensors in insertion order: what state_dict() returns and load() gives back.
using StateDict = OrderedDict<std::string, Tensor>;

namespace safetensors {

/// The header's free-form "__metadata__" (string to string).
using Metadata = std::map<std::string, std::string>;

/// Writes `tensors` to `path` atomically: the bytes go to a temporary file in the same directory,
/// which is fsynced and renamed over `path` (then the directory is fsynced). On any failure the
/// temporary file is removed and a previous file at `path` is left untouched. Non-contiguous
/// tensors are written as their values in row-major order, byte for byte. The header lists the
/// tensors in insertion order; the data is laid out by decreasing element size so that every
/// tensor is aligned for its dtype (zero-copy memory mapping). Errors: ValueError for tensors that
/// cannot be stored (undefined, a dtype without a safetensors code, the name "__metadata__", names
/// that are not UTF-8), RuntimeError for I/O failures (the message names the path and the system's
/// reason).
void save_file(const StateDict& tensors, const std::string& path, const Metadata& metadata = {});

/// Reads every tensor of a safetensors file into fresh memory (the file is not kept open), in the
/// header's order (insertion order for files written by save_file). Malformed files raise
/// ValueError naming the file and the problem; I/O failures raise RuntimeError. Never reads outside
/// the file.
StateDict load_file(const std::string& path);

/// The in-memory forms (Python's safetensors.torch.save / load): the file's bytes as a string.
std::string serialize(const StateDict& tensors, const Metadata& metadata = {});
StateDict deserialize(std::string_view bytes);

/// A safetensors file opened by memory mapping (Python's safe_open(path, "pt")). Tensors returned
/// by get_tensor() share the mapping, which lives as long as the SafeOpen or any such tensor.
/// The mapping is private (copy-on-write): writing into a returned tensor never changes the file.
/// The header is validated completely on construction. Replacing the file with save_file (a new
/// inode) is safe while it is mapped; truncating it in place from elsewhere is not.
///   ember::safetensors::SafeOpen f("model.safetensors");
///   for (const auto& k : f.keys()) use(f.get_tensor(k));
class SafeOpen {
 public:
  explicit SafeOpen(const std::string& path);
  /// Tensor names in the header's order.
  std::vector<std::string> keys() const;
  bool contains(const std::string& name) const;
  /// The tensor, sharing the mapped memory (copied only when the file's layout leaves it
  /// misaligned for its dtype, or for bool bytes other than 0/1). IndexError for unknown names.
  Tensor get_tensor(const std::string& name) const;
  /// Shape and dtype from the header, without touching the data.
  std::vector<int64_t> shape(const std::string& name) const;
  ScalarType dtype(const std::string& name) const;
  const Metadata& metadata() const;
  const std::string& path() const;

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

/// The safetensors dtype code ("F32", "BF16", "BOOL", ...) of an Ember dtype; ValueError for
/// dtypes without one.
std::string dtype_code(ScalarType dtype);

}  // namespace safetensors

/// libtorch's torch::save / torch::load. save writes a safetensors file (see above); load reads
/// safetensors files and the state dicts PyTorch's torch.save writes (`.pt`/`.pth` zip archives,
/// see ember/serialize/pickle.h), telling them apart by their first bytes.
void save(const StateDict& tensors, const std::string& path);
StateDict load(const std::string& path);

/// torch::save(tensor, path) / torch::save(tensors, path): a safetensors file with the tensors
/// under the keys "0", "1", ...
void save(const Tensor& tensor, const std::string& path);
void save(const std::vector<Tensor>& tensors, const std::string& path);
/// torch::load(tensor, path): the file's only tensor (from save above, or a torch.save of a
/// tensor, a one-element list or tuple, or a one-entry dict). ValueError otherwise.
void load(Tensor& tensor, const std::string& path);
/// torch::load(tensors, path): every tensor of the file in order (from save above, or a
/// torch.save of a list, tuple or dict of tensors).
void load(std::vector<Tensor>& tensors, const std::string& path);

/// Objects that can be saved: they give a StateDict and take one back (optimizers; modules and
/// schedulers gain these overloads simply by having the two methods).
template <typename T>
concept Stateful = requires(const T& c, T& m, const StateDict& sd) {
  { c.state_dict() } -> std::convertible_to<StateDict>;
  m.load_state_dict(sd);
};

/// ember::save(optimizer, path) / ember::load(optimizer, path).
template <Stateful T>
void save(const T& object, const std::string& path) {
  save(object.state_dict(), path);
}
template <Stateful T>
void load(T& object, const std::string& path) {
  object.load_state_dict(load(path));
}

/// Pointer-like holders (std::shared_ptr<M>, module holders): save(model, path) as in libtorch.
template <typename P>
requires(!Stateful<P>) && requires(const P& p) {
  requires Stateful<std::remove_cvref_t<decltype(*p)>>;
}
void save(const P& holder, const std::string& path) { save(*holder, path); }
template <typename P>
requires(!Stateful<P>) && requires(const P& p) {
  requires Stateful<std::remove_cvref_t<decltype(*p)>>;
}
void load(P& holder, const std::string& path) { load(*holder, path); }

}  // namespace ember
