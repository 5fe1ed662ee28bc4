#include "serialize/file_io.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "ember/core/error.h"

namespace ember::detail {

namespace {

std::string errno_text(int err) { return std::strerror(err); }

// Closes a descriptor on scope exit unless released.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::shared_ptr<MappedFile> MappedFile::open(const std::string& path, const char* who) {
  Fd f;
  do {
    f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (f.fd < 0 && errno == EINTR);
  EMBER_CHECK(f.fd >= 0, who, " cannot open '", path, "': ", errno_text(errno));
  struct stat st {};
  EMBER_CHECK(::fstat(f.fd, &st) == 0, who, " cannot stat '", path, "': ", errno_text(errno));
  EMBER_CHECK(S_ISREG(st.st_mode), who, " '", path, "' is not a regular file");
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size == 0) return std::shared_ptr<MappedFile>(new MappedFile(nullptr, 0));
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, f.fd, 0);
  EMBER_CHECK(p != MAP_FAILED, who, " cannot map '", path, "': ", errno_text(errno));
  return std::shared_ptr<MappedFile>(new MappedFile(static_cast<uint8_t*>(p), size));
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
}

void write_file_atomically(
    const std::string& path, const char* who,
    const std::function<void(const std::function<void(const void*, size_t)>&)>& body) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  EMBER_CHECK(target.has_filename(), who, " cannot write '", path, "': not a file name");
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");

  // A fresh name in the same directory (rename is atomic only within one file system).
  static std::atomic<uint64_t> counter{0};
  std::string tmp;
  Fd f;
  for (int attempt = 0; attempt < 100 && f.fd < 0; ++attempt) {
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    std::string name = ".";
    name += target.filename().string();
    name += ".tmp.";
    name += std::to_string(::getpid());
    name += '.';
    name += std::to_string(counter.fetch_add(1));
    name += '.';
    name += std::to_string(stamp % 1000000);
    tmp = (dir / name).string();
    f.fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (f.fd < 0 && errno != EEXIST && errno != EINTR) break;
  }
  EMBER_CHECK(f.fd >= 0, who, " cannot write '", path, "': cannot create a temporary file in '",
              dir.string(), "': ", errno_text(errno));

  auto fail = [&](const char* what, int err) {
    ::close(f.fd);
    f.fd = -1;
    ::unlink(tmp.c_str());
    EMBER_THROW(RuntimeError, who, " cannot write '", path, "': ", what, ": ", errno_text(err));
  };
  // Keep the permissions of a file being replaced.
  struct stat old {};
  if (::stat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode)) {
    if (::fchmod(f.fd, old.st_mode & 07777) != 0) fail("fchmod", errno);
  }
  try {
    body([&](const void* data, size_t n) {
      const auto* p = static_cast<const char*>(data);
      while (n > 0) {
        const ssize_t w = ::write(f.fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) fail("write", w < 0 ? errno : EIO);
        p += w;
        n -= static_cast<size_t>(w);
      }
    });
  } catch (...) {
    if (f.fd >= 0) {
      ::close(f.fd);
      f.fd = -1;
      ::unlink(tmp.c_str());
    }
    throw;
  }
  if (::fsync(f.fd) != 0) fail("fsync", errno);
  const int fd = f.fd;
  f.fd = -1;
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    EMBER_THROW(RuntimeError, who, " cannot write '", path, "': close: ", errno_text(err));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    EMBER_THROW(RuntimeError, who, " cannot write '", path, "': rename: ", errno_text(err));
  }
  // Make the new directory entry durable too. Some file systems cannot fsync directories
  // (EINVAL); the data itself is already on disk then.
  Fd d;
  d.fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d.fd >= 0 && ::fsync(d.fd) != 0 && errno != EINVAL && errno != EROFS) {
    EMBER_THROW(RuntimeError, who, " wrote '", path,
                "' but could not fsync its directory: ", errno_text(errno));
  }
}

}  // namespace ember::detail
