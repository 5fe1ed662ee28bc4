#pragma once
// Blocking TCP helpers with deadlines (poll-based), for the TCP store's client and server.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace ember::distributed::detail {

using Clock = std::chrono::steady_clock;
/// No deadline: wait as long as it takes.
using Deadline = std::optional<Clock::time_point>;

/// A connected socket, or -1 once the deadline passed without one (the last error in `why`).
int connect_until(const std::string& host, uint16_t port, Clock::time_point deadline,
                  std::string& why);
/// A listening socket on host:port (port 0: any free one, written back to `port`).
int listen_on(const std::string& host, uint16_t& port, std::string& why);
/// False when the peer closed or an error occurred (not retried).
bool send_all(int fd, const void* data, size_t n);
/// Reads exactly n bytes: 1 done, 0 peer closed or error, -1 the deadline passed.
int recv_all(int fd, void* data, size_t n, const Deadline& deadline);
/// Disables Nagle: store messages are small and latency-bound.
void set_nodelay(int fd);

}  // namespace ember::distributed::detail
