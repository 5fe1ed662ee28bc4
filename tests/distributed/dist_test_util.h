#pragma once
// Worlds of child processes joined in a default process group over a loopback TCP store, and
// tensors with known per-rank values for checking collectives against local computations.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

#include "distributed/multiprocess.h"
#include "ember/distributed.h"
#include "ember/ember.h"

namespace ember::testing_dist {

namespace dist = ember::distributed;
using namespace std::chrono_literals;

/// A TCP store server in the test's process for its children, and its port; in a child (which
/// replays the test) none is started and the port is the parent's.
struct ChildrenServer {
  std::unique_ptr<dist::TCPStoreServer> server;
  uint16_t port = 0;
};
inline ChildrenServer serve_children() {
  ChildrenServer s;
  if (!in_child()) s.server = std::make_unique<dist::TCPStoreServer>("127.0.0.1", 0);
  s.port = share_port(s.server ? s.server->port() : 0);
  return s;
}

/// Runs body(rank) in `world` child processes that joined a "gloo" default group (through a
/// store served by the parent); each child returns body's status. Every child is reaped.
inline void run_world(int world, const std::function<int(int)>& body,
                      std::chrono::milliseconds pg_timeout = 20s,
                      std::chrono::seconds limit = std::chrono::seconds(40)) {
  const auto server = serve_children();
  const uint16_t port = server.port;
  auto status = run_children(
      world,
      [&](int rank) {
        dist::TCPStoreOptions o;
        o.port = port;
        o.timeout = pg_timeout;
        auto store = std::make_shared<dist::TCPStore>("127.0.0.1", o);
        dist::init_process_group("gloo", store, rank, world, pg_timeout);
        int rc = body(rank);
        dist::destroy_process_group();
        return rc;
      },
      limit);
  for (int r = 0; r < world; ++r) EXPECT_EQ(status[r], 0) << "rank " << r << " of " << world;
}

/// A 1-D tensor of `dtype` with element i = f(i) (converted).
inline Tensor make(ScalarType dtype, int64_t n, const std::function<double(int64_t)>& f) {
  Tensor t = empty({n}, TensorOptions().dtype(dtype));
  visit_dtype(dtype, "make", [&](auto tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    auto* p = t.data_ptr<T>();
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<T, bool>)
        p[i] = f(i) != 0;
      else
        p[i] = static_cast<T>(static_cast<float>(f(i)));
    }
  });
  return t;
}

/// The tensor's values as doubles (any layout).
inline std::vector<double> values(const Tensor& t) {
  Tensor d = t.detach().to(kFloat64).contiguous();
  const double* p = d.data_ptr<double>();
  return std::vector<double>(p, p + d.numel());
}

/// True when t holds want (to the dtype's precision for floating-point dtypes); prints the first
/// mismatch.
inline bool holds(const Tensor& t, const std::vector<double>& want, const std::string& what) {
  auto got = values(t);
  const bool half = t.dtype() == kFloat16 || t.dtype() == kBFloat16;
  if (got.size() != want.size()) {
    std::fprintf(stderr, "%s: %zu values, want %zu\n", what.c_str(), got.size(), want.size());
    return false;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    const double rel = half ? 1e-2 : t.dtype() == kFloat32 ? 1e-6 : 1e-12;
    const double tol = rel * std::max(1.0, std::abs(want[i]));
    if (!(std::abs(got[i] - want[i]) <= tol)) {
      std::fprintf(stderr, "%s (%s): element %zu is %g, want %g\n", what.c_str(),
                   dtype_name(t.dtype()), i, got[i], want[i]);
      return false;
    }
  }
  return true;
}

inline const std::vector<ScalarType>& all_dtypes() {
  static const std::vector<ScalarType> d = {kBool,  kUInt8,   kInt8,     kInt16,   kInt32,
                                            kInt64, kFloat16, kBFloat16, kFloat32, kFloat64};
  return d;
}

}  // namespace ember::testing_dist
