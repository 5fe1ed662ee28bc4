// Zip central-directory reader (APPNOTE.TXT): end of central directory record, its zip64 form,
// central file headers, local headers. Enough for torch.save's archives; no encryption, no
// multi-disk archives.
#include "serialize/zip_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "ember/core/error.h"

namespace ember::detail {
namespace {

constexpr uint32_t kEndSig = 0x06054b50;
constexpr uint32_t kEnd64Sig = 0x06064b50;
constexpr uint32_t kEnd64LocatorSig = 0x07064b50;
constexpr uint32_t kCentralSig = 0x02014b50;
constexpr uint32_t kLocalSig = 0x04034b50;

uint64_t rd(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

#define ZIP_CHECK(cond, ...) \
  EMBER_CHECK_VALUE(cond, "[torch.load] ", source_, ": not a valid zip archive (", __VA_ARGS__, ")")

ZipReader::ZipReader(const uint8_t* data, uint64_t size, std::string source)
    : data_(data), size_(size), source_(std::move(source)) {
  // A range [at, at + n) lies inside the buffer.
  auto inside = [&](uint64_t at, uint64_t n) { return at <= size_ && n <= size_ - at; };
  ZIP_CHECK(size_ >= 22, "only ", size_, " bytes: truncated?");
  // The end record is the last 22 bytes plus a comment of up to 65535 bytes.
  uint64_t end = size_ - 22;
  const uint64_t lowest = size_ >= 22 + 65535 ? size_ - 22 - 65535 : 0;
  while (rd(data_ + end, 4) != kEndSig) {
    ZIP_CHECK(end > lowest, "no end of central directory record: truncated?");
    --end;
  }
  uint64_t count = rd(data_ + end + 10, 2);
  uint64_t cd_size = rd(data_ + end + 12, 4);
  uint64_t cd_offset = rd(data_ + end + 16, 4);
  if (count == 0xFFFF || cd_size == 0xFFFFFFFF || cd_offset == 0xFFFFFFFF) {
    ZIP_CHECK(end >= 20 && rd(data_ + end - 20, 4) == kEnd64LocatorSig,
              "zip64 sizes without a zip64 locator");
    const uint64_t rec = rd(data_ + end - 20 + 8, 8);
    ZIP_CHECK(inside(rec, 56) && rd(data_ + rec, 4) == kEnd64Sig, "bad zip64 end record");
    count = rd(data_ + rec + 32, 8);
    cd_size = rd(data_ + rec + 40, 8);
    cd_offset = rd(data_ + rec + 48, 8);
  }
  ZIP_CHECK(inside(cd_offset, cd_size), "the central directory lies outside the file: truncated?");
  ZIP_CHECK(count <= cd_size / 46, "the central directory is too small for ", count, " entries");
  uint64_t at = cd_offset;
  const uint64_t cd_end = cd_offset + cd_size;
  entries_.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    ZIP_CHECK(at + 46 <= cd_end && rd(data_ + at, 4) == kCentralSig, "bad central header ", i);
    const uint8_t* h = data_ + at;
    Entry e;
    const uint16_t flags = rd(h + 8, 2);
    ZIP_CHECK((flags & 1) == 0, "encrypted entries are not supported");
    e.method = rd(h + 10, 2);
    e.crc = rd(h + 16, 4);
    e.compressed = rd(h + 20, 4);
    e.size = rd(h + 24, 4);
    const uint64_t name_len = rd(h + 28, 2), extra_len = rd(h + 30, 2), comment_len = rd(h + 32, 2);
    uint64_t local = rd(h + 42, 4);
    ZIP_CHECK(at + 46 + name_len + extra_len + comment_len <= cd_end, "central header ", i,
              " overruns the directory");
    e.name.assign(reinterpret_cast<const char*>(h + 46), name_len);
    // The zip64 extra field holds, in order, whichever of the three values were 0xFFFFFFFF.
    const uint8_t* x = h + 46 + name_len;
    for (uint64_t k = 0; k + 4 <= extra_len;) {
      const uint64_t id = rd(x + k, 2), len = rd(x + k + 2, 2);
      ZIP_CHECK(k + 4 + len <= extra_len, "bad extra field in '", e.name, "'");
      if (id == 1) {
        uint64_t f = k + 4;
        for (uint64_t* v : {&e.size, &e.compressed, &local}) {
          if (*v != 0xFFFFFFFF) continue;
          ZIP_CHECK(f + 8 <= k + 4 + len, "short zip64 field in '", e.name, "'");
          *v = rd(x + f, 8);
          f += 8;
        }
      }
      k += 4 + len;
    }
    at += 46 + name_len + extra_len + comment_len;
    // The data follows the local header, whose name and extra field may differ in length.
    ZIP_CHECK(inside(local, 30) && rd(data_ + local, 4) == kLocalSig, "bad local header for '",
              e.name, "'");
    e.data_offset = local + 30 + rd(data_ + local + 26, 2) + rd(data_ + local + 28, 2);
    ZIP_CHECK(inside(e.data_offset, e.compressed), "the data of '", e.name,
              "' lies outside the file: truncated?");
    ZIP_CHECK(e.method == 0 || e.method == 8, "entry '", e.name, "' uses compression method ",
              e.method, " (supported: stored, deflate)");
    ZIP_CHECK(e.method != 0 || e.compressed == e.size, "stored entry '", e.name,
              "' has different sizes");
    entries_.push_back(std::move(e));
  }
}

const ZipReader::Entry* ZipReader::find(std::string_view name) const {
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [&](const Entry& e) { return e.name == name; });
  return it == entries_.end() ? nullptr : &*it;
}

std::string_view ZipReader::read(const Entry& e, std::string& scratch) const {
  const uint8_t* src = data_ + e.data_offset;
  std::string_view out(reinterpret_cast<const char*>(src), e.size);
  if (e.method == 8) {
    // Deflated data expands by at most ~1032x; a larger claimed size is hostile.
    ZIP_CHECK(e.size / 1032 <= e.compressed + 1, "entry '", e.name, "' claims ", e.size,
              " bytes from ", e.compressed);
    scratch.assign(e.size, '\0');
    z_stream z{};
    ZIP_CHECK(inflateInit2(&z, -MAX_WBITS) == Z_OK, "zlib initialisation failed");
    uint64_t in_left = e.compressed, out_left = e.size;
    z.next_in = const_cast<Bytef*>(src);
    z.next_out = reinterpret_cast<Bytef*>(scratch.data());
    int rc = Z_OK;
    while (rc == Z_OK) {
      // zlib counts in 32 bits: feed at most 1 GiB at a time.
      const uInt in_chunk = static_cast<uInt>(std::min<uint64_t>(in_left, 1u << 30));
      const uInt out_chunk = static_cast<uInt>(std::min<uint64_t>(out_left, 1u << 30));
      z.avail_in = in_chunk;
      z.avail_out = out_chunk;
      rc = inflate(&z, Z_NO_FLUSH);
      in_left -= in_chunk - z.avail_in;
      out_left -= out_chunk - z.avail_out;
      if (rc == Z_OK && in_chunk == z.avail_in && out_chunk == z.avail_out) rc = Z_BUF_ERROR;
    }
    inflateEnd(&z);
    ZIP_CHECK(rc == Z_STREAM_END && out_left == 0, "entry '", e.name,
              "' does not inflate to its size");
    out = scratch;
  }
  uLong crc = crc32(0L, Z_NULL, 0);
  for (uint64_t done = 0; done < out.size();) {
    const uInt n = static_cast<uInt>(std::min<uint64_t>(out.size() - done, 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(out.data() + done), n);
    done += n;
  }
  ZIP_CHECK(crc == e.crc, "entry '", e.name, "' fails its CRC-32 check: the file is corrupt");
  return out;
}

#undef ZIP_CHECK

}  // namespace ember::detail
