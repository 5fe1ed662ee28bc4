#include "distributed/socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

namespace ember::distributed::detail {
namespace {

struct AddrInfo {
  addrinfo* list = nullptr;
  ~AddrInfo() {
    if (list) ::freeaddrinfo(list);
  }
};

int resolve(const std::string& host, uint16_t port, bool passive, AddrInfo& out) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  const std::string service = std::to_string(port);
  return ::getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &out.list);
}

int ms_until(const Deadline& deadline) {
  if (!deadline) return -1;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now());
  return static_cast<int>(std::clamp<int64_t>(left.count(), 0, 1 << 30));
}

// One non-blocking connect attempt bounded by the deadline; 0 on success.
int try_connect(const addrinfo* a, Clock::time_point deadline, int& fd_out) {
  int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
  if (fd < 0) return errno;
  int rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
  int err = rc == 0 ? 0 : errno;
  if (err == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    int n = ::poll(&p, 1, ms_until(deadline));
    socklen_t len = sizeof err;
    if (n <= 0)
      err = ETIMEDOUT;
    else if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
      err = errno;
  }
  if (err != 0) {
    ::close(fd);
    return err;
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  set_nodelay(fd);
  fd_out = fd;
  return 0;
}

}  // namespace

void set_nodelay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int connect_until(const std::string& host, uint16_t port, Clock::time_point deadline,
                  std::string& why) {
  auto backoff = std::chrono::milliseconds(10);
  while (true) {
    AddrInfo ai;
    int rc = resolve(host, port, false, ai);
    if (rc != 0) {
      why = ::gai_strerror(rc);
    } else {
      for (const addrinfo* a = ai.list; a; a = a->ai_next) {
        int fd = -1;
        int err = try_connect(a, deadline, fd);
        if (err == 0) return fd;
        why = std::strerror(err);
      }
    }
    // The server may not be listening yet: retry with a growing pause until the deadline.
    const auto now = Clock::now();
    if (now >= deadline) return -1;
    std::this_thread::sleep_for(std::min<Clock::duration>(backoff, deadline - now));
    backoff = std::min(backoff * 2, std::chrono::milliseconds(500));
  }
}

int listen_on(const std::string& host, uint16_t& port, std::string& why) {
  AddrInfo ai;
  int rc = resolve(host, port, true, ai);
  if (rc != 0) {
    why = ::gai_strerror(rc);
    return -1;
  }
  for (const addrinfo* a = ai.list; a; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      why = std::strerror(errno);
      continue;
    }
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 1024) != 0) {
      why = std::strerror(errno);
      ::close(fd);
      continue;
    }
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port
                                            : reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
    return fd;
  }
  return -1;
}

bool send_all(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

int recv_all(int fd, void* data, size_t n, const Deadline& deadline) {
  auto* p = static_cast<char*>(data);
  while (n > 0) {
    pollfd pfd{fd, POLLIN, 0};
    int r = ::poll(&pfd, 1, ms_until(deadline));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return 0;
    if (r == 0) return -1;
    ssize_t k = ::recv(fd, p, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return 0;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return 1;
}

}  // namespace ember::distributed::detail
