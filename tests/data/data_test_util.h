#pragma once
// Helpers for the data tests: a private temporary directory and raw file writing.
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace ember::test {

/// A fresh directory under the system temp dir, removed with its contents on destruction.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("ember_data_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

inline void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

inline std::vector<unsigned char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// An IDX header: 0, 0, type code, ndim, then the sizes big-endian.
inline std::vector<unsigned char> idx_header(unsigned char code,
                                             const std::vector<uint32_t>& sizes) {
  std::vector<unsigned char> b = {0, 0, code, static_cast<unsigned char>(sizes.size())};
  for (uint32_t s : sizes) {
    b.push_back(static_cast<unsigned char>(s >> 24));
    b.push_back(static_cast<unsigned char>(s >> 16));
    b.push_back(static_cast<unsigned char>(s >> 8));
    b.push_back(static_cast<unsigned char>(s));
  }
  return b;
}

}  // namespace ember::test
