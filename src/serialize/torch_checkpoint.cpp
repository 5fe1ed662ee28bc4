// torch.save archives: `<archive>/data.pkl` (the pickled object), `<archive>/data/<key>` (one raw
// storage per persistent id), `<archive>/byteorder` ("little" or "big"; absent means little) and
// `<archive>/version`. The archive name is whatever prefix the first entry has, as PyTorch's
// reader takes it.
#include "serialize/torch_checkpoint.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include "ember/core/error.h"
#include "ember/serialize.h"
#include "serialize/file_io.h"
#include "serialize/pickle_internal.h"
#include "serialize/zip_reader.h"

namespace ember {
namespace detail {

bool is_zip_archive(const uint8_t* data, uint64_t size) {
  return size >= 4 && data[0] == 'P' && data[1] == 'K' && data[2] == 3 && data[3] == 4;
}

bool is_legacy_torch_file(const uint8_t* data, uint64_t size) {
  return size >= 4 && data[0] == 0x80 && data[1] == 2 && data[2] == 0x8a && data[3] == 10;
}

void reject_legacy_torch_file(const std::string& source) {
  EMBER_THROW(ValueError, "[torch.load] ", source,
              ": this is the legacy (pre-1.6) torch.save format, which Ember does not read; "
              "re-save it in Python with torch.save(obj, path) from PyTorch 1.6 or later");
}

namespace {

void byteswap_elements(uint8_t* p, uint64_t nbytes, int64_t width) {
  for (uint64_t i = 0; i + width <= nbytes; i += width) std::reverse(p + i, p + i + width);
}

IValue load_archive(const uint8_t* data, uint64_t size, const std::string& source) {
  if (is_legacy_torch_file(data, size)) reject_legacy_torch_file(source);
  ZipReader zip(data, size, source);
  EMBER_CHECK_VALUE(!zip.entries().empty(), "[torch.load] ", source, ": the archive is empty");
  const std::string& first = zip.entries().front().name;
  const std::string prefix = first.substr(0, first.find('/') + 1);
  const auto* pkl = zip.find(prefix + "data.pkl");
  EMBER_CHECK_VALUE(pkl != nullptr, "[torch.load] ", source, ": no ", prefix,
                    "data.pkl in the archive (not a torch.save file?)");
  bool big_endian = false;
  std::string scratch;
  if (const auto* bo = zip.find(prefix + "byteorder")) {
    const std::string_view order = zip.read(*bo, scratch);
    EMBER_CHECK_VALUE(order == "little" || order == "big", "[torch.load] ", source,
                      ": unknown byteorder '", order, "'");
    big_endian = order == "big";
  }

  std::map<std::string, std::shared_ptr<const PickleObject>> storages;
  StorageLoader loader = [&](ScalarType dtype, const std::string& key, uint64_t numel) {
    if (auto it = storages.find(key); it != storages.end()) {
      EMBER_CHECK_VALUE(it->second->dtype == dtype, "[torch.load] ", source, ": storage '", key,
                        "' is used as both ", dtype_name(it->second->dtype), " and ",
                        dtype_name(dtype));
      return it->second;
    }
    const auto* entry = zip.find(prefix + "data/" + key);
    EMBER_CHECK_VALUE(entry != nullptr, "[torch.load] ", source, ": storage '", key,
                      "' has no entry ", prefix, "data/", key, " in the archive");
    const auto width = static_cast<uint64_t>(element_size(dtype));
    uint64_t nbytes = 0;
    const bool overflow = __builtin_mul_overflow(numel, width, &nbytes);
    EMBER_CHECK_VALUE(!overflow && nbytes == entry->size, "[torch.load] ", source, ": storage '",
                      key, "' of ", numel, " ", dtype_name(dtype), " elements needs ",
                      overflow ? std::string("over 2^64") : std::to_string(nbytes),
                      " bytes, but its entry holds ", entry->size);
    std::string inflated;
    const std::string_view bytes = zip.read(*entry, inflated);
    auto obj = std::make_shared<PickleObject>();
    obj->name = "storage '" + key + "'";
    obj->dtype = dtype;
    obj->numel = numel;
    obj->storage = std::make_shared<StorageImpl>(static_cast<size_t>(nbytes));
    auto* dst = static_cast<uint8_t*>(obj->storage->data());
    if (nbytes > 0) std::memcpy(dst, bytes.data(), nbytes);
    if (big_endian && width > 1) byteswap_elements(dst, nbytes, static_cast<int64_t>(width));
    if (dtype == kBool) {
      for (uint64_t i = 0; i < nbytes; ++i) dst[i] = dst[i] != 0;
    }
    storages.emplace(key, obj);
    return std::shared_ptr<const PickleObject>(std::move(obj));
  };
  const std::string_view pickle = zip.read(*pkl, scratch);
  std::string pickle_copy(pickle);  // `scratch` is reused by the storage reads
  return unpickle(pickle_copy, loader, source);
}

}  // namespace

StateDict load_torch_archive(const uint8_t* data, uint64_t size, const std::string& source) {
  IValue v = load_archive(data, size, source);
  EMBER_CHECK_VALUE(v.isGenericDict(), "[torch.load] ", source,
                    ": expected a state dict (a dict of str to Tensor), but the file holds a ",
                    v.type_name(), "; read it with ember::pickle_load_file");
  return v.to_state_dict();
}

}  // namespace detail

namespace {

// The tensors of a file of either format, in order.
std::vector<Tensor> load_tensor_list(const std::string& path) {
  auto file = detail::MappedFile::open(path, "[torch.load]");
  std::vector<Tensor> out;
  if (!detail::is_zip_archive(file->data(), file->size())) {
    for (auto& item : load(path)) out.push_back(item.value());
    return out;
  }
  const IValue v = detail::load_archive(file->data(), file->size(), path);
  auto add = [&](const IValue& e) {
    EMBER_CHECK_VALUE(e.isTensor(), "[torch.load] ", path, ": expected tensors, found a ",
                      e.type_name());
    out.push_back(e.toTensor());
  };
  if (v.isTensor()) {
    add(v);
  } else if (v.isList() || v.isTuple()) {
    for (const auto& e : v.isList() ? v.toList() : v.toTuple()) add(e);
  } else if (v.isGenericDict()) {
    for (const auto& kv : v.toGenericDict()) add(kv.second);
  } else {
    EMBER_THROW(ValueError, "[torch.load] ", path, ": expected tensors, found a ", v.type_name());
  }
  return out;
}

}  // namespace

void save(const Tensor& tensor, const std::string& path) {
  save(std::vector<Tensor>{tensor}, path);
}

void save(const std::vector<Tensor>& tensors, const std::string& path) {
  StateDict sd;
  for (size_t i = 0; i < tensors.size(); ++i) sd.insert(std::to_string(i), tensors[i]);
  save(sd, path);
}

void load(Tensor& tensor, const std::string& path) {
  auto all = load_tensor_list(path);
  EMBER_CHECK_VALUE(all.size() == 1, "[torch.load] ", path, ": expected one tensor, found ",
                    all.size());
  tensor = std::move(all.front());
}

void load(std::vector<Tensor>& tensors, const std::string& path) {
  tensors = load_tensor_list(path);
}

IValue pickle_load(const std::vector<char>& data) {
  return detail::load_archive(reinterpret_cast<const uint8_t*>(data.data()), data.size(),
                              "<bytes>");
}

IValue pickle_load_file(const std::string& path) {
  auto file = detail::MappedFile::open(path, "[torch.load]");
  return detail::load_archive(file->data(), file->size(), path);
}

}  // namespace ember
