#pragma once
// A small reader for zip archives as torch.save writes them (stored or deflated entries, zip64
// when large): the central directory is parsed and every offset and size checked against the
// buffer, so no entry can point outside it. Private to src/serialize.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ember::detail {

class ZipReader {
 public:
  struct Entry {
    std::string name;
    uint16_t method = 0;  // 0 stored, 8 deflate
    uint32_t crc = 0;
    uint64_t compressed = 0;
    uint64_t size = 0;
    uint64_t data_offset = 0;  // of the entry's bytes in the buffer
  };

  /// Parses the archive in [data, data + size); ValueError naming `source` when it is not a zip
  /// archive or is inconsistent.
  ZipReader(const uint8_t* data, uint64_t size, std::string source);

  const std::vector<Entry>& entries() const { return entries_; }
  const Entry* find(std::string_view name) const;
  /// The entry's bytes, checked against its CRC-32: a view of the buffer for stored entries,
  /// else inflated into `scratch`.
  std::string_view read(const Entry& e, std::string& scratch) const;

 private:
  const uint8_t* data_;
  uint64_t size_;
  std::string source_;
  std::vector<Entry> entries_;
};

}  // namespace ember::detail
