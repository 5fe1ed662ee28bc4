#pragma once
// File plumbing shared by the serializers: read-only-by-contract memory maps and atomic writes.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace ember::detail {

/// A whole regular file mapped privately (copy-on-write: writes to the memory never reach the
/// file). Unmapped when the last reference goes.
class MappedFile {
 public:
  /// Opens and maps `path`; RuntimeError naming `who` and the path when it cannot. Empty files
  /// are not mapped (data() is null, size() 0).
  static std::shared_ptr<MappedFile> open(const std::string& path, const char* who);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }

 private:
  MappedFile(uint8_t* data, uint64_t size) : data_(data), size_(size) {}
  uint8_t* data_;
  uint64_t size_;
};

/// Writes a file atomically: `body` receives a sink that appends bytes to a temporary file in
/// the target's directory; the temporary is fsynced, renamed over `path`, and the directory is
/// fsynced. If `body` or any system call fails, the temporary is removed, `path` keeps its old
/// contents, and the error propagates (system failures as RuntimeError naming `who`, the path
/// and the reason).
void write_file_atomically(
    const std::string& path, const char* who,
    const std::function<void(const std::function<void(const void*, size_t)>&)>& body);

}  // namespace ember::detail
