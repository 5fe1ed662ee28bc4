// IDX and text readers (include/ember/data/readers.h). Files are read whole into memory,
// decompressed with zlib when they start with the gzip magic bytes, and parsed with every size
// checked against the bytes actually there: a malformed file is an error, never an out-of-bounds
// read.
#include "ember/data/readers.h"

#include <zlib.h>

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <vector>

#include "ember/ops/factory.h"

namespace ember::data {

namespace {

using Bytes = std::vector<unsigned char>;

Bytes read_file(const std::string& path, const char* op) {
  std::error_code ec;
  EMBER_CHECK(!std::filesystem::is_directory(path, ec), "[", op, "] cannot read '", path,
              "': it is a directory");
  std::ifstream in(path, std::ios::binary);
  EMBER_CHECK(in.is_open(), "[", op, "] cannot open '", path, "': ", std::strerror(errno));
  Bytes bytes;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    bytes.insert(bytes.end(), buf, buf + in.gcount());
  }
  EMBER_CHECK(in.eof() && !in.bad(), "[", op, "] error while reading '", path, "'");
  return bytes;
}

bool is_gzip(const Bytes& b) { return b.size() >= 2 && b[0] == 0x1f && b[1] == 0x8b; }

// Inflates every gzip member of `in` (gzip allows several, concatenated).
Bytes gunzip(const Bytes& in, const std::string& path, const char* op) {
  EMBER_CHECK_VALUE(in.size() <= std::numeric_limits<uInt>::max(), "[", op, "] '", path,
                    "': compressed files over 4 GiB are not supported");
  Bytes out;
  z_stream zs{};
  EMBER_CHECK(inflateInit2(&zs, 16 + MAX_WBITS) == Z_OK, "[", op, "] zlib initialisation failed");
  zs.next_in = const_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  unsigned char buf[1 << 16];
  int rc = Z_OK;
  for (;;) {
    zs.next_out = buf;
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    out.insert(out.end(), buf, buf + (sizeof buf - zs.avail_out));
    if (rc == Z_STREAM_END) {
      // Another member follows only if more gzip bytes remain.
      if (zs.avail_in >= 2 && zs.next_in[0] == 0x1f && zs.next_in[1] == 0x8b) {
        inflateReset(&zs);
        continue;
      }
      break;
    }
    if (rc != Z_OK) break;
    if (zs.avail_in == 0 && zs.avail_out != 0) {
      rc = Z_BUF_ERROR;  // the input ended inside the stream
      break;
    }
  }
  const std::string msg = zs.msg ? zs.msg : "";
  const size_t trailing = zs.avail_in;
  inflateEnd(&zs);
  EMBER_CHECK_VALUE(rc != Z_BUF_ERROR, "[", op, "] '", path,
                    "': truncated gzip data (the compressed stream ends early)");
  EMBER_CHECK_VALUE(rc == Z_STREAM_END, "[", op, "] '", path, "': corrupt gzip data (", msg, ")");
  EMBER_CHECK_VALUE(trailing == 0, "[", op, "] '", path, "': ", trailing,
                    " unexpected bytes after the gzip data");
  return out;
}

Bytes read_maybe_gzip(const std::string& path, const char* op) {
  Bytes raw = read_file(path, op);
  return is_gzip(raw) ? gunzip(raw, path, op) : raw;
}

struct IdxType {
  unsigned char code;
  ScalarType dtype;
};
constexpr IdxType kIdxTypes[] = {{0x08, kUInt8}, {0x09, kInt8},    {0x0B, kInt16},
                                 {0x0C, kInt32}, {0x0D, kFloat32}, {0x0E, kFloat64}};

uint32_t read_be32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 |
         static_cast<uint32_t>(p[2]) << 8 | static_cast<uint32_t>(p[3]);
}

// Copies n elements of `size` bytes from big-endian `src` to native (little-endian) `dst`.
void copy_swapped(unsigned char* dst, const unsigned char* src, int64_t n, int64_t size) {
  if (size == 1) {
    std::memcpy(dst, src, static_cast<size_t>(n));
    return;
  }
  for (int64_t i = 0; i < n; ++i, src += size, dst += size)
    for (int64_t b = 0; b < size; ++b) dst[b] = src[size - 1 - b];
}

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

}  // namespace

Tensor read_idx(const std::string& path) {
  static_assert(std::endian::native == std::endian::little, "IDX reader assumes little endian");
  const Bytes b = read_maybe_gzip(path, "read_idx");
  auto fail = [&](const auto&... msg) {
    EMBER_THROW(ValueError, "[read_idx] '", path, "': ", msg...);
  };
  if (b.empty()) fail("the file is empty (expected an IDX header)");
  if (b.size() < 4) fail("truncated header: ", b.size(), " bytes, expected at least 4");
  const uint32_t magic = read_be32(b.data());
  if (b[0] != 0 || b[1] != 0)
    fail("bad magic number ", hex32(magic),
         " (an IDX file starts with two zero bytes, a type code and the number of dimensions,"
         " e.g. 0x00000803 for MNIST images, 0x00000801 for labels)");
  ScalarType dtype = ScalarType::Undefined;
  for (const auto& t : kIdxTypes)
    if (t.code == b[2]) dtype = t.dtype;
  if (dtype == ScalarType::Undefined)
    fail("bad magic number ", hex32(magic), ": unknown data type code ", hex32(b[2]).substr(8),
         " (expected 08, 09, 0B, 0C, 0D or 0E)");
  const size_t ndim = b[3];
  const size_t header = 4 + 4 * ndim;
  if (b.size() < header)
    fail("truncated header: ", ndim, " dimensions need ", header, " bytes, the file has ",
         b.size());
  std::vector<int64_t> sizes(ndim);
  const int64_t elem = element_size(dtype);
  int64_t numel = 1;
  bool overflow = false;
  std::string shape;
  for (size_t d = 0; d < ndim; ++d) {
    sizes[d] = read_be32(b.data() + 4 + 4 * d);
    shape += (d ? " x " : "") + std::to_string(sizes[d]);
    if (sizes[d] != 0 && numel > std::numeric_limits<int64_t>::max() / elem / sizes[d])
      overflow = true;
    else
      numel *= sizes[d];
  }
  const uint64_t data_bytes = b.size() - header;
  const std::string fields = "the size fields (" + (ndim ? shape : std::string("a scalar")) + ", " +
                             dtype_name(dtype) + ") need ";
  if (overflow) fail(fields, "more than 2^63 bytes of data (truncated data)");
  const auto need = static_cast<uint64_t>(numel * elem);
  if (need > data_bytes)
    fail(fields, need, " bytes of data but the file has ", data_bytes, " (truncated data)");
  if (need < data_bytes)
    fail(fields, need, " bytes of data but the file has ", data_bytes, " (trailing bytes)");
  Tensor t = ember::empty(sizes, TensorOptions().dtype(dtype));
  copy_swapped(static_cast<unsigned char*>(t.data_ptr()), b.data() + header, numel, elem);
  return t;
}

void write_idx(const Tensor& t, const std::string& path) {
  EMBER_CHECK(t.defined(), "[write_idx] expected a defined tensor");
  unsigned char code = 0;
  for (const auto& ty : kIdxTypes)
    if (ty.dtype == t.dtype()) code = ty.code;
  EMBER_CHECK_TYPE(code != 0, "[write_idx] IDX files cannot store dtype '", dtype_name(t.dtype()),
                   "' (supported: uint8, int8, int16, int32, float32, float64)");
  EMBER_CHECK_VALUE(t.dim() <= 255, "[write_idx] IDX files have at most 255 dimensions, got ",
                    t.dim());
  Bytes b = {0, 0, code, static_cast<unsigned char>(t.dim())};
  for (int64_t s : t.sizes()) {
    EMBER_CHECK_VALUE(s <= int64_t{0xFFFFFFFF}, "[write_idx] size ", s,
                      " does not fit IDX's 32-bit size fields");
    const auto v = static_cast<uint32_t>(s);
    b.insert(b.end(), {static_cast<unsigned char>(v >> 24), static_cast<unsigned char>(v >> 16),
                       static_cast<unsigned char>(v >> 8), static_cast<unsigned char>(v)});
  }
  const Tensor c = t.contiguous();
  const int64_t elem = c.element_size();
  const size_t header = b.size();
  b.resize(header + static_cast<size_t>(c.numel() * elem));
  if (c.numel() > 0)
    copy_swapped(b.data() + header, static_cast<const unsigned char*>(c.data_ptr()), c.numel(),
                 elem);

  const bool gz = path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  if (gz) {
    EMBER_CHECK_VALUE(b.size() <= std::numeric_limits<uInt>::max(),
                      "[write_idx] compressing more than 4 GiB is not supported");
    uLongf cap = compressBound(static_cast<uLong>(b.size())) + 64;
    Bytes z(cap);
    z_stream zs{};
    EMBER_CHECK(deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
                             Z_DEFAULT_STRATEGY) == Z_OK,
                "[write_idx] zlib initialisation failed");
    zs.next_in = b.data();
    zs.avail_in = static_cast<uInt>(b.size());
    zs.next_out = z.data();
    zs.avail_out = static_cast<uInt>(z.size());
    const int rc = deflate(&zs, Z_FINISH);
    const size_t n = z.size() - zs.avail_out;
    deflateEnd(&zs);
    EMBER_CHECK(rc == Z_STREAM_END, "[write_idx] gzip compression of '", path, "' failed");
    z.resize(n);
    b.swap(z);
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  EMBER_CHECK(out.is_open(), "[write_idx] cannot open '", path,
              "' for writing: ", std::strerror(errno));
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  out.close();
  EMBER_CHECK(!out.fail(), "[write_idx] error while writing '", path, "'");
}

std::string read_text(const std::string& path) {
  const Bytes b = read_maybe_gzip(path, "read_text");
  return std::string(b.begin(), b.end());
}

}  // namespace ember::data
