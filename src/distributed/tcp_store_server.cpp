// The TCP store's server: an accepting thread and one thread per connection (a job has a few
// connections per rank). Waits happen here, on a condition variable, so that a waiting client
// costs no traffic; a wait also ends when its client hangs up or the server stops.
#include <ember/distributed/store.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <thread>

#include "distributed/socket.h"
#include "distributed/store_util.h"
#include "distributed/tcp_store_protocol.h"

namespace ember::distributed {

using detail::Command;
using detail::Status;

struct TCPStoreServer::State {
  int listen_fd = -1;
  uint16_t port = 0;
  std::mutex mutex;  // map, fds, threads
  std::condition_variable cv;
  std::unordered_map<std::string, Bytes> map;
  std::vector<int> fds;
  std::vector<std::thread> threads;
  std::atomic<bool> stopping{false};
  std::thread acceptor;

  void accept_loop();
  void serve(int fd);
  bool handle(int fd, Command command);
  // kOk, kTimeout, or nothing when the client left or the server is stopping.
  std::optional<Status> wait_keys(int fd, const std::vector<std::string>& keys, uint64_t ms,
                                  std::unique_lock<std::mutex>& lock);
  bool all_present(const std::vector<std::string>& keys) const {
    return std::all_of(keys.begin(), keys.end(), [&](const auto& k) { return map.count(k); });
  }
};

namespace {

bool read_u64(int fd, uint64_t& v) { return detail::recv_all(fd, &v, sizeof v, {}) == 1; }

bool read_field(int fd, std::string& out) {
  uint64_t n = 0;
  if (!read_u64(fd, n) || n > detail::kMaxField) return false;
  out.resize(n);
  return n == 0 || detail::recv_all(fd, out.data(), n, {}) == 1;
}

bool read_bytes(int fd, Bytes& out) {
  std::string s;
  if (!read_field(fd, s)) return false;
  out.assign(s.begin(), s.end());
  return true;
}

bool read_keys(int fd, std::vector<std::string>& keys) {
  uint64_t n = 0;
  if (!read_u64(fd, n) || n > (1u << 20)) return false;
  keys.resize(n);
  for (auto& k : keys)
    if (!read_field(fd, k)) return false;
  return true;
}

bool reply(int fd, Status status, const Bytes& value = {}) {
  Bytes out{static_cast<uint8_t>(status)};
  uint64_t n = value.size();
  const auto* p = reinterpret_cast<const uint8_t*>(&n);
  out.insert(out.end(), p, p + sizeof n);
  out.insert(out.end(), value.begin(), value.end());
  return detail::send_all(fd, out.data(), out.size());
}

}  // namespace

TCPStoreServer::TCPStoreServer(const std::string& host, uint16_t port)
    : state_(std::make_unique<State>()) {
  std::string why;
  state_->port = port;
  state_->listen_fd = detail::listen_on(host, state_->port, why);
  EMBER_CHECK_T(DistStoreError, state_->listen_fd >= 0,
                "[TCPStore] The server socket has failed to listen on (", host, ", ", port,
                "): ", why);
  state_->acceptor = std::thread([s = state_.get()] { s->accept_loop(); });
}

TCPStoreServer::~TCPStoreServer() {
  State& s = *state_;
  s.stopping = true;
  ::shutdown(s.listen_fd, SHUT_RDWR);  // wakes accept()
  s.acceptor.join();
  ::close(s.listen_fd);
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    for (int fd : s.fds) ::shutdown(fd, SHUT_RDWR);  // wakes blocked reads
    threads.swap(s.threads);
  }
  s.cv.notify_all();  // wakes waits
  for (auto& t : threads) t.join();
}

uint16_t TCPStoreServer::port() const { return state_->port; }

void TCPStoreServer::State::accept_loop() {
  while (!stopping) {
    int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (stopping) return;
      if (errno == EINTR || errno == ECONNABORTED) continue;
      // Out of descriptors or similar: pause rather than spin.
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    detail::set_nodelay(fd);
    std::lock_guard<std::mutex> lock(mutex);
    if (stopping) {
      ::close(fd);
      return;
    }
    fds.push_back(fd);
    threads.emplace_back([this, fd] { serve(fd); });
  }
}

void TCPStoreServer::State::serve(int fd) {
  while (!stopping) {
    uint8_t command = 0;
    if (detail::recv_all(fd, &command, 1, {}) != 1) break;
    if (command > static_cast<uint8_t>(Command::kWait)) break;  // not our protocol
    if (!handle(fd, static_cast<Command>(command))) break;
  }
  std::lock_guard<std::mutex> lock(mutex);
  fds.erase(std::find(fds.begin(), fds.end(), fd));
  ::close(fd);
}

std::optional<Status> TCPStoreServer::State::wait_keys(int fd, const std::vector<std::string>& keys,
                                                       uint64_t ms,
                                                       std::unique_lock<std::mutex>& lock) {
  const auto deadline = detail::Clock::now() + std::chrono::milliseconds(ms);
  while (!all_present(keys)) {
    if (stopping) return std::nullopt;
    auto now = detail::Clock::now();
    if (ms > 0 && now >= deadline) return Status::kTimeout;
    auto step = std::chrono::milliseconds(100);
    if (ms > 0)
      step = std::min(step, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now) +
                                std::chrono::milliseconds(1));
    cv.wait_for(lock, step);
    // A waiting client sends nothing, so anything readable means it hung up.
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 0) != 0) return std::nullopt;
  }
  return Status::kOk;
}

bool TCPStoreServer::State::handle(int fd, Command command) {
  std::string key;
  std::vector<std::string> keys;
  Bytes a, b;
  uint64_t n = 0;
  switch (command) {
    case Command::kPing:
      return reply(fd, Status::kOk);
    case Command::kSet: {
      if (!read_field(fd, key) || !read_bytes(fd, a)) return false;
      {
        std::lock_guard<std::mutex> lock(mutex);
        map[key] = std::move(a);
      }
      cv.notify_all();
      return reply(fd, Status::kOk);
    }
    case Command::kGet: {
      if (!read_field(fd, key) || !read_u64(fd, n)) return false;
      std::unique_lock<std::mutex> lock(mutex);
      auto status = wait_keys(fd, {key}, n, lock);
      if (!status) return false;
      Bytes value = *status == Status::kOk ? map[key] : Bytes{};
      lock.unlock();
      return reply(fd, *status, value);
    }
    case Command::kWait: {
      if (!read_keys(fd, keys) || !read_u64(fd, n)) return false;
      std::unique_lock<std::mutex> lock(mutex);
      auto status = wait_keys(fd, keys, n, lock);
      if (!status) return false;
      lock.unlock();
      return reply(fd, *status);
    }
    case Command::kAdd: {
      if (!read_field(fd, key) || !read_u64(fd, n)) return false;
      int64_t sum = static_cast<int64_t>(n);
      {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = map.find(key);
        try {
          if (it != map.end()) sum += detail::parse_int(it->second, "TCPStore.add", key);
        } catch (const Error& e) {
          return reply(fd, Status::kError, to_bytes(e.what()));
        }
        map[key] = detail::int_bytes(sum);
      }
      cv.notify_all();
      return reply(fd, Status::kOk, detail::i64_bytes(sum));
    }
    case Command::kCompareSet: {
      if (!read_field(fd, key) || !read_bytes(fd, a) || !read_bytes(fd, b)) return false;
      Bytes result;
      {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = map.find(key);
        if (it == map.end() && !a.empty())
          result = a;
        else if (it != map.end() && it->second != a)
          result = it->second;
        else
          result = map[key] = b;
      }
      cv.notify_all();
      return reply(fd, Status::kOk, result);
    }
    case Command::kDeleteKey: {
      if (!read_field(fd, key)) return false;
      std::lock_guard<std::mutex> lock(mutex);
      return reply(fd, Status::kOk, detail::i64_bytes(static_cast<int64_t>(map.erase(key))));
    }
    case Command::kCheck: {
      if (!read_keys(fd, keys)) return false;
      std::lock_guard<std::mutex> lock(mutex);
      return reply(fd, Status::kOk, detail::i64_bytes(all_present(keys)));
    }
    case Command::kNumKeys: {
      std::lock_guard<std::mutex> lock(mutex);
      return reply(fd, Status::kOk, detail::i64_bytes(static_cast<int64_t>(map.size())));
    }
  }
  return false;
}

}  // namespace ember::distributed
