// FileStore: an append-only log of records in one file, shared by processes. Every operation
// takes an exclusive flock, applies the records other processes appended since it last looked,
// and appends its own. Record: u8 kind (set/delete), u64 key length, key, u64 value length, value.
#include <ember/distributed/store.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "distributed/store_util.h"

namespace ember::distributed {
namespace {

constexpr uint8_t kSet = 0;
constexpr uint8_t kDelete = 1;
// User keys and the cleanup counter live apart so that num_keys counts only the former.
const std::string kUserPrefix = "/";
const std::string kCleanupKey = "cleanup/";

void append_u64(Bytes& out, uint64_t v) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}

}  // namespace

// Opens and exclusively locks the file, then brings the store's cache up to the file's end.
class FileStore::Locked {
 public:
  Locked(FileStore& store) : store_(store), guard_(store.mutex_) {
    fd_ = ::open(store.path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    EMBER_CHECK_T(DistStoreError, fd_ >= 0, "[FileStore] cannot open '", store.path_,
                  "': ", std::strerror(errno));
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) {
        int err = errno;
        ::close(fd_);
        EMBER_THROW(DistStoreError, "[FileStore] cannot lock '", store.path_,
                    "': ", std::strerror(err));
      }
    }
    try {
      refresh();
    } catch (...) {
      ::flock(fd_, LOCK_UN);
      ::close(fd_);
      throw;
    }
  }
  ~Locked() {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }

  void append(uint8_t kind, const std::string& key, const Bytes& value) {
    Bytes rec{kind};
    append_u64(rec, key.size());
    rec.insert(rec.end(), key.begin(), key.end());
    append_u64(rec, value.size());
    rec.insert(rec.end(), value.begin(), value.end());
    size_t done = 0;
    while (done < rec.size()) {
      ssize_t n = ::write(fd_, rec.data() + done, rec.size() - done);
      if (n < 0 && errno == EINTR) continue;
      EMBER_CHECK_T(DistStoreError, n > 0, "[FileStore] cannot write '", store_.path_,
                    "': ", std::strerror(errno));
      done += static_cast<size_t>(n);
    }
    refresh();  // apply our own record through the same path as everyone else's
  }

 private:
  void refresh() {
    Bytes buf;
    off_t end = ::lseek(fd_, 0, SEEK_END);
    // A shorter file than we read before was replaced (removed by cleanup and made anew).
    if (end < store_.pos_) {
      store_.pos_ = 0;
      store_.cache_.clear();
    }
    if (end == store_.pos_) return;
    buf.resize(static_cast<size_t>(end - store_.pos_));
    size_t done = 0;
    while (done < buf.size()) {
      ssize_t n = ::pread(fd_, buf.data() + done, buf.size() - done, store_.pos_ + done);
      if (n < 0 && errno == EINTR) continue;
      EMBER_CHECK_T(DistStoreError, n > 0, "[FileStore] cannot read '", store_.path_, "'");
      done += static_cast<size_t>(n);
    }
    size_t at = 0;
    auto take_u64 = [&] {
      uint64_t v;
      EMBER_CHECK_T(DistStoreError, at + sizeof v <= buf.size(), "[FileStore] '", store_.path_,
                    "' is truncated or not a FileStore file");
      std::memcpy(&v, buf.data() + at, sizeof v);
      at += sizeof v;
      return v;
    };
    auto take = [&](uint64_t n) {
      EMBER_CHECK_T(DistStoreError, n <= buf.size() - at, "[FileStore] '", store_.path_,
                    "' is truncated or not a FileStore file");
      Bytes out(buf.begin() + at, buf.begin() + at + n);
      at += n;
      return out;
    };
    while (at < buf.size()) {
      uint8_t kind = buf[at++];
      std::string key = to_string(take(take_u64()));
      Bytes value = take(take_u64());
      if (kind == kDelete)
        store_.cache_.erase(key);
      else
        store_.cache_[key] = std::move(value);
    }
    store_.pos_ = end;
  }

  FileStore& store_;
  std::lock_guard<std::mutex> guard_;
  int fd_ = -1;
};

FileStore::FileStore(std::string path, int64_t num_workers)
    : path_(std::move(path)), num_workers_(num_workers) {
  EMBER_CHECK_VALUE(!path_.empty(), "[FileStore] expected a file path, got an empty string");
  Locked open(*this);  // creates the file and reports an unusable path now, not later
}

FileStore::~FileStore() {
  if (num_workers_ <= 0) return;
  try {
    // The last worker out removes the file, as c10d's FileStore does.
    if (add_raw(kCleanupKey, 1) >= num_workers_) ::unlink(path_.c_str());
  } catch (const Error&) {
    // A destructor must not throw; the file is merely left behind.
  }
}

int64_t FileStore::add_raw(const std::string& key, int64_t value) {
  Locked file(*this);
  auto it = cache_.find(key);
  int64_t sum = value;
  if (it != cache_.end()) sum += detail::parse_int(it->second, "FileStore.add", key);
  file.append(kSet, key, detail::int_bytes(sum));
  return sum;
}

void FileStore::do_set(const std::string& key, const Bytes& value) {
  Locked file(*this);
  file.append(kSet, kUserPrefix + key, value);
}

Bytes FileStore::do_get(const std::string& key) {
  do_wait({key}, timeout_);
  Locked file(*this);
  auto it = cache_.find(kUserPrefix + key);
  if (it == cache_.end()) detail::throw_wait_timeout("FileStore.get", timeout_, {key});
  return it->second;
}

int64_t FileStore::do_add(const std::string& key, int64_t value) {
  return add_raw(kUserPrefix + key, value);
}

Bytes FileStore::do_compare_set(const std::string& key, const Bytes& expected,
                                const Bytes& desired) {
  Locked file(*this);
  auto it = cache_.find(kUserPrefix + key);
  if (it == cache_.end()) {
    if (!expected.empty()) return expected;
  } else if (it->second != expected) {
    return it->second;
  }
  file.append(kSet, kUserPrefix + key, desired);
  return desired;
}

bool FileStore::do_delete_key(const std::string& key) {
  Locked file(*this);
  if (!cache_.count(kUserPrefix + key)) return false;
  file.append(kDelete, kUserPrefix + key, {});
  return true;
}

bool FileStore::do_check(const std::vector<std::string>& keys) {
  Locked file(*this);
  for (const auto& k : keys)
    if (!cache_.count(kUserPrefix + k)) return false;
  return true;
}

int64_t FileStore::do_num_keys() {
  Locked file(*this);
  int64_t n = 0;
  for (const auto& [k, v] : cache_) n += k.compare(0, kUserPrefix.size(), kUserPrefix) == 0;
  return n;
}

void FileStore::do_wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  // Other processes write the file, so there is nothing to be notified by: poll.
  const auto start = std::chrono::steady_clock::now();
  while (!do_check(keys)) {
    if (timeout != kNoTimeout && std::chrono::steady_clock::now() - start >= timeout)
      detail::throw_wait_timeout("FileStore.wait", timeout, keys);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace ember::distributed
