#pragma once
// Key-value stores through which processes meet (c10d's Store family): HashStore (one process),
// FileStore (processes sharing a file system), TCPStore (a server in one process, clients
// anywhere), PrefixStore (a namespace inside another store). Semantics follow c10d: get and
// wait block until the keys exist or the timeout passes (DistStoreError), add creates the key,
// compare_set sets only when the current value equals `expected` (a missing key matches an
// empty `expected`).
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/core/error.h"

namespace ember::distributed {

using Bytes = std::vector<uint8_t>;

/// Bytes of a string and back: values are raw bytes, as in c10d.
Bytes to_bytes(const std::string& s);
std::string to_string(const Bytes& b);

class Store {
 public:
  /// c10d's defaults: 300 s, and zero meaning "wait forever".
  static constexpr std::chrono::milliseconds kDefaultTimeout{300000};
  static constexpr std::chrono::milliseconds kNoTimeout{0};

  explicit Store(std::chrono::milliseconds timeout = kDefaultTimeout) : timeout_(timeout) {}
  virtual ~Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  void set(const std::string& key, const Bytes& value) { do_set(key, value); }
  void set(const std::string& key, const std::string& value) { do_set(key, to_bytes(value)); }
  /// Blocks until `key` exists (at most timeout()); DistStoreError after that.
  Bytes get(const std::string& key) { return do_get(key); }
  /// Adds `value` to the integer stored at `key` (created as 0) and returns the sum.
  int64_t add(const std::string& key, int64_t value) { return do_add(key, value); }
  /// Sets `desired` when the value equals `expected` (or the key is missing and `expected` is
  /// empty) and returns it; otherwise returns the current value (`expected` for a missing key).
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
    return do_compare_set(key, expected, desired);
  }
  Bytes compare_set(const std::string& key, const std::string& expected,
                    const std::string& desired) {
    return do_compare_set(key, to_bytes(expected), to_bytes(desired));
  }
  /// True when the key existed and was removed.
  bool delete_key(const std::string& key) { return do_delete_key(key); }
  /// True when every key exists now (does not wait).
  bool check(const std::vector<std::string>& keys) { return do_check(keys); }
  int64_t num_keys() { return do_num_keys(); }
  /// Blocks until every key exists; DistStoreError after `timeout` (kNoTimeout: forever).
  void wait(const std::vector<std::string>& keys) { do_wait(keys, timeout_); }
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
    do_wait(keys, timeout);
  }

  std::chrono::milliseconds timeout() const { return timeout_; }
  virtual void set_timeout(std::chrono::milliseconds timeout) { timeout_ = timeout; }

 protected:
  virtual void do_set(const std::string& key, const Bytes& value) = 0;
  virtual Bytes do_get(const std::string& key) = 0;
  virtual int64_t do_add(const std::string& key, int64_t value) = 0;
  virtual Bytes do_compare_set(const std::string& key, const Bytes& expected,
                               const Bytes& desired) = 0;
  virtual bool do_delete_key(const std::string& key) = 0;
  virtual bool do_check(const std::vector<std::string>& keys) = 0;
  virtual int64_t do_num_keys() = 0;
  virtual void do_wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) = 0;

  std::chrono::milliseconds timeout_;
};

/// An in-memory store for threads of one process.
class HashStore : public Store {
 public:
  HashStore() = default;

 protected:
  void do_set(const std::string& key, const Bytes& value) override;
  Bytes do_get(const std::string& key) override;
  int64_t do_add(const std::string& key, int64_t value) override;
  Bytes do_compare_set(const std::string& key, const Bytes& expected,
                       const Bytes& desired) override;
  bool do_delete_key(const std::string& key) override;
  bool do_check(const std::vector<std::string>& keys) override;
  int64_t do_num_keys() override;
  void do_wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::unordered_map<std::string, Bytes> map_;
};

/// Every key of `store` under "<prefix>/".
class PrefixStore : public Store {
 public:
  PrefixStore(std::string prefix, std::shared_ptr<Store> store);
  const std::shared_ptr<Store>& underlying_store() const { return store_; }
  void set_timeout(std::chrono::milliseconds timeout) override;

 protected:
  void do_set(const std::string& key, const Bytes& value) override;
  Bytes do_get(const std::string& key) override;
  int64_t do_add(const std::string& key, int64_t value) override;
  Bytes do_compare_set(const std::string& key, const Bytes& expected,
                       const Bytes& desired) override;
  bool do_delete_key(const std::string& key) override;
  bool do_check(const std::vector<std::string>& keys) override;
  int64_t do_num_keys() override;
  void do_wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;

 private:
  std::string join(const std::string& key) const { return prefix_ + "/" + key; }
  std::vector<std::string> join(const std::vector<std::string>& keys) const;
  std::string prefix_;
  std::shared_ptr<Store> store_;
};

/// A store in a file shared by processes (an append-only log guarded by flock). With
/// `num_workers` > 0 the last of that many FileStore objects to be destroyed removes the file.
class FileStore : public Store {
 public:
  explicit FileStore(std::string path, int64_t num_workers = -1);
  ~FileStore() override;
  const std::string& path() const { return path_; }

 protected:
  void do_set(const std::string& key, const Bytes& value) override;
  Bytes do_get(const std::string& key) override;
  int64_t do_add(const std::string& key, int64_t value) override;
  Bytes do_compare_set(const std::string& key, const Bytes& expected,
                       const Bytes& desired) override;
  bool do_delete_key(const std::string& key) override;
  bool do_check(const std::vector<std::string>& keys) override;
  int64_t do_num_keys() override;
  void do_wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;

 private:
  class Locked;  // the file, locked and read up to its end
  int64_t add_raw(const std::string& key, int64_t value);
  std::string path_;
  int64_t num_workers_;
  std::mutex mutex_;  // threads of this process; flock serialises processes
  int64_t pos_ = 0;   // bytes of the log already applied to cache_
  std::unordered_map<std::string, Bytes> cache_;
};

struct TCPStoreOptions {
  uint16_t port = 29500;  ///< 0 with is_server: any free port (see TCPStore::port())
  bool is_server = false;
  std::optional<int64_t> num_workers;  ///< with wait_workers: the server waits for that many
  bool wait_workers = true;
  std::chrono::milliseconds timeout = Store::kDefaultTimeout;
};

class TCPStoreServer;

/// A client of a TCP key-value server; with `is_server` it also runs the server in a thread of
/// this process. Connecting retries until the timeout; a connection that breaks is reopened on
/// the next operation (operations that cannot be repeated safely, add and compare_set and
/// delete_key, report the break instead of retrying).
class TCPStore : public Store {
 public:
  explicit TCPStore(std::string host, const TCPStoreOptions& options = {});
  ~TCPStore() override;
  uint16_t port() const { return port_; }
  const std::string& host() const { return host_; }

 protected:
  void do_set(const std::string& key, const Bytes& value) override;
  Bytes do_get(const std::string& key) override;
  int64_t do_add(const std::string& key, int64_t value) override;
  Bytes do_compare_set(const std::string& key, const Bytes& expected,
                       const Bytes& desired) override;
  bool do_delete_key(const std::string& key) override;
  bool do_check(const std::vector<std::string>& keys) override;
  int64_t do_num_keys() override;
  void do_wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;

 private:
  struct Reply;
  // One request and its reply; `server_wait` is how long the server may wait before replying.
  Reply request(const Bytes& message, bool retry, const char* op,
                std::optional<std::chrono::milliseconds> server_wait);
  void connect();
  void wait_for_workers(int64_t num_workers);
  std::string host_;
  uint16_t port_;
  std::unique_ptr<TCPStoreServer> server_;
  std::mutex mutex_;  // one request at a time on the connection
  int fd_ = -1;
};

/// The TCP key-value server on its own (TCPStore with is_server runs one): serves until
/// destroyed. Listens on `host` (an address or name; "" for all interfaces).
class TCPStoreServer {
 public:
  TCPStoreServer(const std::string& host, uint16_t port);
  ~TCPStoreServer();
  TCPStoreServer(const TCPStoreServer&) = delete;
  TCPStoreServer& operator=(const TCPStoreServer&) = delete;
  uint16_t port() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ember::distributed
