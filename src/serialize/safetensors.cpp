// safetensors files: header validation, memory-mapped reading and atomic writing.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "ember/ops/factory.h"
#include "ember/serialize.h"
#include "serialize/file_io.h"
#include "serialize/torch_checkpoint.h"

namespace ember::safetensors {

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; Ember supports little-endian hosts only");

namespace {

using Json = nlohmann::ordered_json;

// Python's safetensors refuses headers past 100 MB; so does Ember, before reading them.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

struct CodeEntry {
  const char* code;
  ScalarType dtype;
};
constexpr CodeEntry kCodes[] = {
    {"F64", kFloat64}, {"F32", kFloat32}, {"F16", kFloat16}, {"BF16", kBFloat16}, {"I64", kInt64},
    {"I32", kInt32},   {"I16", kInt16},   {"I8", kInt8},     {"U8", kUInt8},      {"BOOL", kBool},
};

// One tensor's header entry, validated.
struct Entry {
  std::string name;
  ScalarType dtype;
  std::vector<int64_t> shape;
  uint64_t begin, end;  // relative to the data buffer
};

struct Header {
  std::vector<Entry> entries;  // in header order
  Metadata metadata;
  uint64_t data_start = 0;  // 8 + header length
};

template <typename... Args>
[[noreturn]] void bad_file(const std::string& src, const Args&... args) {
  EMBER_THROW(ValueError, "[safetensors] ", src, ": ", args...);
}

// A non-negative JSON integer (shape entries and data offsets).
bool as_uint(const Json& v, uint64_t& out) {
  if (v.is_number_unsigned()) {
    out = v.get<uint64_t>();
    return true;
  }
  if (v.is_number_integer() && v.get<int64_t>() >= 0) {
    out = static_cast<uint64_t>(v.get<int64_t>());
    return true;
  }
  return false;
}

Entry parse_entry(const std::string& src, const std::string& name, const Json& info) {
  const std::string where = "tensor '" + name + "'";
  if (!info.is_object()) bad_file(src, where, " must be a JSON object");
  auto dt = info.find("dtype");
  auto sh = info.find("shape");
  auto off = info.find("data_offsets");
  if (dt == info.end()) bad_file(src, where, " has no 'dtype'");
  if (sh == info.end()) bad_file(src, where, " has no 'shape'");
  if (off == info.end()) bad_file(src, where, " has no 'data_offsets'");
  if (!dt->is_string()) bad_file(src, where, ": 'dtype' must be a string");

  Entry e{name, kFloat32, {}, 0, 0};
  const auto& code = dt->get_ref<const std::string&>();
  const CodeEntry* found = nullptr;
  for (const auto& c : kCodes) {
    if (code == c.code) found = &c;
  }
  if (!found) {
    bad_file(src, where, " has dtype '", code,
             "', which Ember does not support (supported: F64 F32 F16 BF16 I64 I32 I16 I8 U8 "
             "BOOL)");
  }
  e.dtype = found->dtype;

  if (!sh->is_array()) bad_file(src, where, ": 'shape' must be a list of integers");
  uint64_t numel = 1;
  for (const auto& d : *sh) {
    uint64_t v = 0;
    if (!as_uint(d, v) || v > static_cast<uint64_t>(INT64_MAX)) {
      bad_file(src, where, ": shape ", sh->dump(), " must hold non-negative integers");
    }
    e.shape.push_back(static_cast<int64_t>(v));
    if (__builtin_mul_overflow(numel, v, &numel) || numel > static_cast<uint64_t>(INT64_MAX)) {
      bad_file(src, where, ": shape ", sh->dump(), " has too many elements");
    }
  }
  if (!off->is_array() || off->size() != 2 || !as_uint((*off)[0], e.begin) ||
      !as_uint((*off)[1], e.end)) {
    bad_file(src, where, ": 'data_offsets' must be [begin, end] with non-negative integers");
  }
  if (e.end < e.begin) {
    bad_file(src, where, ": data_offsets [", e.begin, ", ", e.end, "] end before they begin");
  }
  uint64_t nbytes = 0;
  if (__builtin_mul_overflow(numel, static_cast<uint64_t>(element_size(e.dtype)), &nbytes) ||
      nbytes != e.end - e.begin) {
    bad_file(src, where, " of dtype ", code, " and shape ", sh->dump(), " needs ",
             numel * static_cast<uint64_t>(element_size(e.dtype)), " bytes, but data_offsets [",
             e.begin, ", ", e.end, "] span ", e.end - e.begin);
  }
  return e;
}

// Validates everything about the header against a buffer of `size` bytes, reading only inside.
Header parse_header(const uint8_t* data, uint64_t size, const std::string& src) {
  if (size < 8)
    bad_file(src, "the file has ", size, " bytes, too few for the 8-byte header length");
  uint64_t n = 0;
  std::memcpy(&n, data, 8);
  if (n > kMaxHeaderBytes) bad_file(src, "header length ", n, " exceeds the 100 MB limit");
  if (n > size - 8) {
    bad_file(src, "header length ", n, " is larger than the rest of the file (", size - 8,
             " bytes): the file is truncated or not a safetensors file");
  }
  if (n == 0 || data[8] != '{') bad_file(src, "the header does not start with '{'");
  const auto* hbegin = reinterpret_cast<const char*>(data + 8);
  Json j = Json::parse(hbegin, hbegin + n, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) bad_file(src, "the header is not a valid JSON object");

  Header h;
  h.data_start = 8 + n;
  const uint64_t buffer = size - h.data_start;
  for (const auto& [key, value] : j.items()) {
    if (key == "__metadata__") {
      if (!value.is_object()) bad_file(src, "'__metadata__' must map strings to strings");
      for (const auto& [k, v] : value.items()) {
        if (!v.is_string()) bad_file(src, "'__metadata__' value for '", k, "' is not a string");
        h.metadata[k] = v.get<std::string>();
      }
      continue;
    }
    h.entries.push_back(parse_entry(src, key, value));
    if (h.entries.back().end > buffer) {
      bad_file(src, "tensor '", key, "' has data_offsets [", h.entries.back().begin, ", ",
               h.entries.back().end, "] past the end of the data (", buffer, " bytes)");
    }
  }
  // The tensors must tile the data buffer exactly: no gaps, no overlaps, nothing left over.
  std::vector<const Entry*> by_offset;
  for (const auto& e : h.entries) by_offset.push_back(&e);
  std::stable_sort(by_offset.begin(), by_offset.end(), [](const Entry* a, const Entry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  uint64_t pos = 0;
  for (const Entry* e : by_offset) {
    if (e->begin != pos) {
      bad_file(src, "tensor '", e->name, "' starts at byte ", e->begin, " of the data, expected ",
               pos, " (tensors overlap or leave a gap)");
    }
    pos = e->end;
  }
  if (pos != buffer) {
    bad_file(src, "the tensors cover ", pos, " bytes but the data holds ", buffer);
  }
  return h;
}

// Booleans must be 0 or 1 in memory; other bytes (from a foreign or damaged file) read as true.
bool bools_are_canonical(const uint8_t* p, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) {
    if (p[i] > 1) return false;
  }
  return true;
}

Tensor copy_tensor(const Entry& e, const uint8_t* bytes) {
  Tensor t = ember::empty(SymIntList(e.shape), TensorOptions(e.dtype));
  const uint64_t n = e.end - e.begin;
  if (n == 0) return t;
  auto* dst = static_cast<uint8_t*>(t.data_ptr());
  std::memcpy(dst, bytes, n);
  if (e.dtype == kBool) {
    for (uint64_t i = 0; i < n; ++i) dst[i] = dst[i] != 0;
  }
  return t;
}

// The data layout: tensors by decreasing element size (stable), so that each one starts aligned
// for its dtype when the data does (as Python's safetensors orders them); the header keeps the
// caller's order.
std::vector<const StateDict::Item*> data_order(const StateDict& tensors) {
  std::vector<const StateDict::Item*> order;
  for (const auto& item : tensors) order.push_back(&item);
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return a->value().element_size() > b->value().element_size();
  });
  return order;
}

Json header_json(const StateDict& tensors, const Metadata& metadata) {
  for (const auto& item : tensors) {
    const auto& name = item.key();
    const Tensor& t = item.value();
    EMBER_CHECK_VALUE(name != "__metadata__",
                      "[safetensors] '__metadata__' is reserved and cannot name a tensor");
    EMBER_CHECK_VALUE(t.defined(), "[safetensors] tensor '", name, "' is undefined");
    EMBER_CHECK_VALUE(t.device().is_cpu(), "[safetensors] tensor '", name, "' is not on the CPU");
    (void)dtype_code(t.dtype());
  }
  std::unordered_map<std::string, std::pair<uint64_t, uint64_t>> offsets;
  uint64_t offset = 0;
  for (const auto* item : data_order(tensors)) {
    const Tensor& t = item->value();
    const uint64_t nbytes =
        static_cast<uint64_t>(t.numel()) * static_cast<uint64_t>(t.element_size());
    offsets[item->key()] = {offset, offset + nbytes};
    offset += nbytes;
  }
  Json header = Json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  for (const auto& item : tensors) {
    const Tensor& t = item.value();
    const auto [begin, end] = offsets.at(item.key());
    header[item.key()] = {
        {"dtype", dtype_code(t.dtype())}, {"shape", t.sizes()}, {"data_offsets", {begin, end}}};
  }
  return header;
}

using Sink = std::function<void(const void*, size_t)>;

// Writes a tensor's elements in row-major order, byte for byte (no conversion, so NaN payloads
// and every bit pattern survive), gathering strided views in chunks.
void write_elements(const Tensor& t, const Sink& sink) {
  const auto esize = static_cast<size_t>(t.element_size());
  const auto* base = static_cast<const uint8_t*>(t.data_ptr());
  if (t.is_contiguous()) {
    sink(base, static_cast<size_t>(t.numel()) * esize);
    return;
  }
  const auto& sizes = t.sizes();
  const auto& strides = t.strides();
  const size_t nd = sizes.size();
  std::vector<int64_t> index(nd, 0);
  std::vector<uint8_t> chunk;
  constexpr size_t kChunk = 1 << 16;
  chunk.reserve(kChunk + esize);
  for (int64_t n = 0; n < t.numel(); ++n) {
    int64_t off = 0;
    for (size_t d = 0; d < nd; ++d) off += index[d] * strides[d];
    const uint8_t* p = base + off * static_cast<int64_t>(esize);
    chunk.insert(chunk.end(), p, p + esize);
    if (chunk.size() >= kChunk) {
      sink(chunk.data(), chunk.size());
      chunk.clear();
    }
    for (size_t d = nd; d-- > 0;) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
  if (!chunk.empty()) sink(chunk.data(), chunk.size());
}

void write_safetensors(const StateDict& tensors, const Metadata& metadata, const Sink& sink) {
  std::string header;
  try {
    header = header_json(tensors, metadata).dump(-1, ' ', false, Json::error_handler_t::strict);
  } catch (const nlohmann::json::exception&) {
    EMBER_THROW(ValueError, "[safetensors] tensor names and metadata must be valid UTF-8");
  }
  // Pad with spaces so that the data starts 8-byte aligned (as Python's safetensors does).
  header.append((8 - header.size() % 8) % 8, ' ');
  const uint64_t n = header.size();
  sink(&n, 8);
  sink(header.data(), header.size());
  for (const auto* item : data_order(tensors)) {
    if (item->value().numel() > 0) write_elements(item->value(), sink);
  }
}

}  // namespace

std::string dtype_code(ScalarType dtype) {
  for (const auto& c : kCodes) {
    if (c.dtype == dtype) return c.code;
  }
  EMBER_THROW(ValueError, "[safetensors] dtype ", dtype_name(dtype),
              " has no safetensors code in Ember");
}

// ---- SafeOpen

struct SafeOpen::Impl {
  std::string path;
  std::shared_ptr<detail::MappedFile> file;
  Header header;
  std::unordered_map<std::string, size_t> index;

  const Entry& entry(const std::string& name) const {
    auto it = index.find(name);
    EMBER_CHECK_INDEX(it != index.end(), "[safetensors] ", path, ": no tensor named '", name, "'");
    return header.entries[it->second];
  }
};

SafeOpen::SafeOpen(const std::string& path) : impl_(std::make_shared<Impl>()) {
  impl_->path = path;
  impl_->file = detail::MappedFile::open(path, "[safetensors]");
  impl_->header = parse_header(impl_->file->data(), impl_->file->size(), path);
  for (size_t i = 0; i < impl_->header.entries.size(); ++i) {
    impl_->index.emplace(impl_->header.entries[i].name, i);
  }
}

std::vector<std::string> SafeOpen::keys() const {
  std::vector<std::string> out;
  for (const auto& e : impl_->header.entries) out.push_back(e.name);
  return out;
}

bool SafeOpen::contains(const std::string& name) const { return impl_->index.count(name) != 0; }

Tensor SafeOpen::get_tensor(const std::string& name) const {
  const Entry& e = impl_->entry(name);
  uint8_t* p = impl_->file->data() + impl_->header.data_start + e.begin;
  const uint64_t n = e.end - e.begin;
  const bool aligned = reinterpret_cast<uintptr_t>(p) % element_size(e.dtype) == 0;
  if (n == 0 || !aligned || (e.dtype == kBool && !bools_are_canonical(p, n))) {
    return copy_tensor(e, p);
  }
  // The storage's deleter owns a reference to the mapping: it is unmapped with its last user.
  auto storage =
      std::make_shared<StorageImpl>(p, static_cast<size_t>(n), [file = impl_->file](void*) {});
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), e.dtype, e.shape,
                                             contiguous_strides(e.shape), 0));
}

std::vector<int64_t> SafeOpen::shape(const std::string& name) const {
  return impl_->entry(name).shape;
}
ScalarType SafeOpen::dtype(const std::string& name) const { return impl_->entry(name).dtype; }
const Metadata& SafeOpen::metadata() const { return impl_->header.metadata; }
const std::string& SafeOpen::path() const { return impl_->path; }

// ---- whole-file and in-memory forms

void save_file(const StateDict& tensors, const std::string& path, const Metadata& metadata) {
  // Build and check the header before any file is created.
  (void)header_json(tensors, metadata);
  detail::write_file_atomically(
      path, "[safetensors]", [&](const Sink& sink) { write_safetensors(tensors, metadata, sink); });
}

StateDict load_file(const std::string& path) {
  auto file = detail::MappedFile::open(path, "[safetensors]");
  Header h = parse_header(file->data(), file->size(), path);
  StateDict out;
  for (const auto& e : h.entries)
    out.insert(e.name, copy_tensor(e, file->data() + h.data_start + e.begin));
  return out;
}

std::string serialize(const StateDict& tensors, const Metadata& metadata) {
  std::string out;
  write_safetensors(tensors, metadata,
                    [&](const void* p, size_t n) { out.append(static_cast<const char*>(p), n); });
  return out;
}

StateDict deserialize(std::string_view bytes) {
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  Header h = parse_header(data, bytes.size(), "<bytes>");
  StateDict out;
  for (const auto& e : h.entries) out.insert(e.name, copy_tensor(e, data + h.data_start + e.begin));
  return out;
}

}  // namespace ember::safetensors

namespace ember {

void save(const StateDict& tensors, const std::string& path) {
  safetensors::save_file(tensors, path);
}

StateDict load(const std::string& path) {
  // torch.save archives and safetensors files are told apart by their first bytes.
  auto file = detail::MappedFile::open(path, "[torch.load]");
  if (detail::is_zip_archive(file->data(), file->size())) {
    return detail::load_torch_archive(file->data(), file->size(), path);
  }
  if (detail::is_legacy_torch_file(file->data(), file->size())) {
    detail::reject_legacy_torch_file(path);
  }
  return safetensors::load_file(path);
}

}  // namespace ember
