// TCPStore's client side (the server is in tcp_store_server.cpp).
#include <ember/distributed/store.h>
#include <unistd.h>

#include <thread>

#include "distributed/socket.h"
#include "distributed/store_util.h"
#include "distributed/tcp_store_protocol.h"

namespace ember::distributed {

using detail::Command;
using detail::Message;
using detail::Status;
using std::chrono::milliseconds;

struct TCPStore::Reply {
  Status status = Status::kOk;
  Bytes value;
};

namespace {
// c10d's key that counts the TCPStore objects of a job (num_workers).
const std::string kInitKey = "init/";
// Extra time a client allows the server beyond the wait it asked for (scheduling, transfer).
constexpr milliseconds kReplySlack{5000};
}  // namespace

TCPStore::TCPStore(std::string host, const TCPStoreOptions& options)
    : Store(options.timeout), host_(std::move(host)), port_(options.port) {
  EMBER_CHECK_VALUE(!host_.empty(), "[TCPStore] expected a host name or address, got \"\"");
  EMBER_CHECK_VALUE(options.timeout.count() >= 0, "[TCPStore] expected a timeout >= 0, got ",
                    options.timeout.count(), "ms");
  EMBER_CHECK_VALUE(!options.num_workers || *options.num_workers >= 1,
                    "[TCPStore] expected num_workers >= 1, got ", options.num_workers.value_or(0));
  EMBER_CHECK_VALUE(options.is_server || port_ != 0,
                    "[TCPStore] a client needs the server's port, got 0");
  if (options.is_server) {
    server_ = std::make_unique<TCPStoreServer>(host_, port_);
    port_ = server_->port();
  }
  connect();
  if (!options.num_workers || !options.wait_workers) return;
  try {
    wait_for_workers(*options.num_workers);
  } catch (...) {  // the destructor does not run for a constructor that throws
    ::close(fd_);
    throw;
  }
}

TCPStore::~TCPStore() {
  if (fd_ >= 0) ::close(fd_);
}

void TCPStore::connect() {
  const auto now = detail::Clock::now();
  const auto deadline =
      timeout_ == kNoTimeout ? detail::Clock::time_point::max() - timeout_ : now + timeout_;
  std::string why;
  fd_ = detail::connect_until(host_, port_, deadline, why);
  EMBER_CHECK_T(DistStoreError, fd_ >= 0, "[TCPStore] The client socket has timed out after ",
                timeout_.count(), "ms while trying to connect to (", host_, ", ", port_,
                "): ", why);
  // A ping proves that what answers is a store server.
  Message ping(Command::kPing);
  uint8_t status = 1;
  uint64_t len = 1;
  bool ok = detail::send_all(fd_, ping.bytes.data(), ping.bytes.size()) &&
            detail::recv_all(fd_, &status, 1, deadline) == 1 &&
            detail::recv_all(fd_, &len, sizeof len, deadline) == 1 && status == 0 && len == 0;
  if (!ok) {
    ::close(fd_);
    fd_ = -1;
    EMBER_THROW(DistStoreError, "[TCPStore] (", host_, ", ", port_,
                ") accepted the connection but does not answer as a store server");
  }
}

void TCPStore::wait_for_workers(int64_t num_workers) {
  int64_t joined = add(kInitKey, 1);
  if (!server_) return;
  // The server's owner waits until every worker has connected, as c10d's does.
  const auto start = detail::Clock::now();
  while (joined < num_workers) {
    auto elapsed = std::chrono::duration_cast<std::chrono::seconds>(detail::Clock::now() - start);
    EMBER_CHECK_T(DistStoreError, timeout_ == kNoTimeout || detail::Clock::now() - start < timeout_,
                  "[TCPStore] Timed out after ", elapsed.count(), " seconds waiting for clients. ",
                  joined, "/", num_workers, " clients joined.");
    std::this_thread::sleep_for(milliseconds(10));
    joined = add(kInitKey, 0);
  }
}

TCPStore::Reply TCPStore::request(const Bytes& message, bool retry, const char* op,
                                  std::optional<milliseconds> server_wait) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (int attempt = 0;; ++attempt) {
    if (fd_ < 0) connect();  // reopen a connection that broke earlier
    // A plain request is answered at once; a wait takes as long as the server was asked to wait.
    detail::Deadline deadline;
    if (!server_wait && timeout_ != kNoTimeout) deadline = detail::Clock::now() + timeout_;
    if (server_wait && *server_wait != kNoTimeout)
      deadline = detail::Clock::now() + *server_wait + kReplySlack;
    Reply r;
    uint64_t len = 0;
    int got = 0;
    if (detail::send_all(fd_, message.data(), message.size())) {
      got = detail::recv_all(fd_, &r.status, 1, deadline);
      if (got == 1) got = detail::recv_all(fd_, &len, sizeof len, deadline);
      if (got == 1 && len > detail::kMaxField) got = 0;
      if (got == 1) {
        r.value.resize(len);
        if (len) got = detail::recv_all(fd_, r.value.data(), len, deadline);
      }
    }
    if (got == 1) {
      if (r.status == Status::kError) EMBER_THROW(ValueError, to_string(r.value));
      return r;
    }
    ::close(fd_);
    fd_ = -1;
    EMBER_CHECK_T(DistStoreError, got != -1, "[", op, "] no reply from the server (", host_, ", ",
                  port_, ") within ", timeout_.count(), "ms");
    EMBER_CHECK_T(DistStoreError, retry && attempt == 0, "[", op,
                  "] lost the connection to the server (", host_, ", ", port_, ")");
  }
}

void TCPStore::do_set(const std::string& key, const Bytes& value) {
  request(Message(Command::kSet).field(key).field(value).bytes, true, "TCPStore.set", std::nullopt);
}

Bytes TCPStore::do_get(const std::string& key) {
  auto r = request(Message(Command::kGet).field(key).u64(timeout_.count()).bytes, true,
                   "TCPStore.get", timeout_);
  if (r.status == Status::kTimeout) detail::throw_wait_timeout("TCPStore.get", timeout_, {key});
  return r.value;
}

int64_t TCPStore::do_add(const std::string& key, int64_t value) {
  auto r = request(Message(Command::kAdd).field(key).u64(static_cast<uint64_t>(value)).bytes, false,
                   "TCPStore.add", std::nullopt);
  return detail::bytes_i64(r.value);
}

Bytes TCPStore::do_compare_set(const std::string& key, const Bytes& expected,
                               const Bytes& desired) {
  return request(Message(Command::kCompareSet).field(key).field(expected).field(desired).bytes,
                 false, "TCPStore.compare_set", std::nullopt)
      .value;
}

bool TCPStore::do_delete_key(const std::string& key) {
  auto r = request(Message(Command::kDeleteKey).field(key).bytes, false, "TCPStore.delete_key",
                   std::nullopt);
  return detail::bytes_i64(r.value) == 1;
}

bool TCPStore::do_check(const std::vector<std::string>& keys) {
  auto r = request(Message(Command::kCheck).keys(keys).bytes, true, "TCPStore.check", std::nullopt);
  return detail::bytes_i64(r.value) != 0;
}

int64_t TCPStore::do_num_keys() {
  auto r = request(Message(Command::kNumKeys).bytes, true, "TCPStore.num_keys", std::nullopt);
  return detail::bytes_i64(r.value);
}

void TCPStore::do_wait(const std::vector<std::string>& keys, milliseconds timeout) {
  EMBER_CHECK_VALUE(timeout.count() >= 0, "[TCPStore.wait] expected a timeout >= 0, got ",
                    timeout.count(), "ms");
  auto r = request(Message(Command::kWait).keys(keys).u64(timeout.count()).bytes, true,
                   "TCPStore.wait", timeout);
  if (r.status == Status::kTimeout) detail::throw_wait_timeout("TCPStore.wait", timeout, keys);
}

}  // namespace ember::distributed
