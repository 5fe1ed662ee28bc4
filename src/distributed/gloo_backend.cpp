// The "gloo" backend: Gloo's collectives over its TCP transport (Debian's libgloo). Gloo's errors
// become DistBackendError, its timeouts DistTimeoutError.
#include <ember/core/error.h>
#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/device.h>

#include <cstring>
#include <exception>
#include <utility>

#include "distributed/backend.h"

namespace ember::distributed::detail {
namespace {

// Gloo's view of an Ember store (c10d's GlooStore).
class GlooStore : public gloo::rendezvous::Store {
 public:
  explicit GlooStore(std::shared_ptr<distributed::Store> store) : store_(std::move(store)) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    store_->set(key, Bytes(data.begin(), data.end()));
  }
  std::vector<char> get(const std::string& key) override {
    Bytes b = store_->get(key);
    return std::vector<char>(b.begin(), b.end());
  }
  void wait(const std::vector<std::string>& keys) override { store_->wait(keys); }
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override {
    store_->wait(keys, timeout);
  }

 private:
  std::shared_ptr<distributed::Store> store_;
};

// Runs a Gloo call, translating its exceptions.
template <typename F>
void guarded(const char* what, F&& f) {
  try {
    f();
  } catch (const gloo::IoException& e) {
    const std::string msg = e.what();
    if (msg.find("imed out") != std::string::npos || msg.find("imeout") != std::string::npos)
      EMBER_THROW(DistTimeoutError, "[", what, "] gloo timed out: ", msg);
    EMBER_THROW(DistBackendError, "[", what, "] gloo: ", msg);
  } catch (const gloo::Exception& e) {
    EMBER_THROW(DistBackendError, "[", what, "] gloo: ", e.what());
  }
}

// Gloo wants a buffer even for zero bytes.
char* nonnull(const void* p) {
  static char empty_buffer[1];
  return p ? static_cast<char*>(const_cast<void*>(p)) : empty_buffer;
}

// Gloo sizes its segments by element size; any type of that width moves the bytes.
template <typename F>
void with_width(ScalarType dtype, F&& f) {
  switch (element_size(dtype)) {
    case 1:
      return f(static_cast<uint8_t*>(nullptr));
    case 2:
      return f(static_cast<uint16_t*>(nullptr));
    case 4:
      return f(static_cast<uint32_t*>(nullptr));
    case 8:
      return f(static_cast<uint64_t*>(nullptr));
  }
  EMBER_THROW(TypeError, "[gloo] unsupported element size for ", dtype_name(dtype));
}

class GlooBackend final : public Backend {
 public:
  GlooBackend(std::shared_ptr<distributed::Store> store, int rank, int size,
              std::chrono::milliseconds timeout, const std::string& hostname)
      : timeout_(timeout) {
    gloo::transport::tcp::attr attr;
    attr.hostname = hostname;
    guarded("init_process_group", [&] {
      device_ = gloo::transport::tcp::CreateDevice(attr);
      auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, size);
      ctx->setTimeout(timeout);
      GlooStore gs(std::move(store));
      ctx->connectFullMesh(gs, device_);
      context_ = ctx;
      init_records(size, capacity_for(size));
      if (!record_capacity_) return;  // allgathered
      // Two sets of inboxes: a peer's next record may arrive while the collective reads this one.
      const size_t cap = record_capacity_;
      inboxes_.resize(2 * static_cast<size_t>(size) * cap);
      record_tx_ = context_->createUnboundBuffer(record_out_.data(), cap);
      for (int set = 0; set < 2; ++set)
        for (int r = 0; r < size; ++r)
          record_rx_[set].push_back(r == rank ? nullptr
                                              : context_->createUnboundBuffer(inbox(set, r), cap));
      for (int r = 0; r < size; ++r)
        if (r != rank) record_rx_[0][r]->recv(r, kRecordSlot);
    });
  }

  // Each rank sends its record straight to every peer, whose receive for it is already posted:
  // one message latency, where an allgather costs a rendezvous per ring step.
  const std::vector<const char*>& exchange(const char* api, size_t bytes) override {
    if (bytes > record_capacity_) return Backend::exchange(api, bytes);
    if (repost_error_) std::rethrow_exception(std::exchange(repost_error_, nullptr));
    const int me = context_->rank, n = context_->size, set = set_;
    set_ ^= 1;
    guarded(api, [&] {
      for (int r = 0; r < n; ++r)
        if (r != me) record_tx_->send(r, kRecordSlot, 0, bytes);
      for (int r = 0; r < n; ++r) {
        records_[r] = r == me ? record_out_.data() : inbox(set, r);
        if (r != me) record_rx_[set][r]->waitRecv(timeout_);
      }
      for (int r = 0; r < n - 1; ++r) record_tx_->waitSend(timeout_);
    });
    // Receives for the next records, posted only now: a peer done with this exchange may be
    // closing its group (Gloo closes hard), which must not fail an exchange that completed. A
    // failure is the next exchange's.
    try {
      guarded(api, [&] {
        for (int r = 0; r < n; ++r)
          if (r != me) record_rx_[set ^ 1][r]->recv(r, kRecordSlot);
      });
    } catch (const Error&) {
      repost_error_ = std::current_exception();
    }
    return records_;
  }

  void allreduce(void* buf, size_t count, ScalarType dtype, ReduceOp op) override {
    auto fn = reduce_function(dtype, op, "all_reduce");
    guarded("all_reduce", [&] {
      gloo::AllreduceOptions o(context_);
      with_width(dtype, [&](auto tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        o.setOutput(static_cast<T*>(buf), count);
      });
      o.setReduceFunction(fn);
      o.setTimeout(timeout_);
      gloo::allreduce(o);
    });
  }

  void reduce(void* buf, size_t count, ScalarType dtype, ReduceOp op, int root) override {
    auto fn = reduce_function(dtype, op, "reduce");
    guarded("reduce", [&] {
      gloo::ReduceOptions o(context_);
      with_width(dtype, [&](auto tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        o.setOutput(static_cast<T*>(buf), count);
      });
      o.setRoot(root);
      o.setReduceFunction(fn);
      o.setTimeout(timeout_);
      gloo::reduce(o);
    });
  }

  void broadcast(void* buf, size_t bytes, int root) override {
    guarded("broadcast", [&] {
      gloo::BroadcastOptions o(context_);
      o.setOutput(static_cast<char*>(buf), bytes);
      o.setRoot(root);
      o.setTimeout(timeout_);
      gloo::broadcast(o);
    });
  }

  void allgather(const void* in, void* out, size_t bytes) override {
    guarded("all_gather", [&] {
      gloo::AllgatherOptions o(context_);
      o.setInput(const_cast<char*>(static_cast<const char*>(in)), bytes);
      o.setOutput(static_cast<char*>(out), bytes * context_->size);
      o.setTimeout(timeout_);
      gloo::allgather(o);
    });
  }

  void gather(const void* in, void* out, size_t bytes, int root) override {
    guarded("gather", [&] {
      gloo::GatherOptions o(context_);
      o.setInput(const_cast<char*>(static_cast<const char*>(in)), bytes);
      if (context_->rank == root) o.setOutput(static_cast<char*>(out), bytes * context_->size);
      o.setRoot(root);
      o.setTimeout(timeout_);
      gloo::gather(o);
    });
  }

  void scatter(const void* in, void* out, size_t bytes, int root) override {
    guarded("scatter", [&] {
      gloo::ScatterOptions o(context_);
      if (context_->rank == root) {
        std::vector<char*> ptrs;
        for (int r = 0; r < context_->size; ++r)
          ptrs.push_back(const_cast<char*>(static_cast<const char*>(in)) + r * bytes);
        o.setInputs(ptrs, bytes);
      }
      o.setOutput(static_cast<char*>(out), bytes);
      o.setRoot(root);
      o.setTimeout(timeout_);
      gloo::scatter(o);
    });
  }

  void alltoallv(const void* in, const std::vector<size_t>& in_bytes, void* out,
                 const std::vector<size_t>& out_bytes) override {
    guarded("all_to_all", [&] {
      gloo::AlltoallvOptions o(context_);
      o.setInput(nonnull(in), std::vector<int64_t>(in_bytes.begin(), in_bytes.end()));
      o.setOutput(nonnull(out), std::vector<int64_t>(out_bytes.begin(), out_bytes.end()));
      o.setTimeout(timeout_);
      gloo::alltoallv(o);
    });
  }

  void barrier() override {
    guarded("barrier", [&] {
      gloo::BarrierOptions o(context_);
      o.setTimeout(timeout_);
      gloo::barrier(o);
    });
  }

  P2PWait send(const void* buf, size_t bytes, int dst, uint32_t tag) override {
    std::shared_ptr<gloo::transport::UnboundBuffer> ub;
    guarded("send", [&] {
      ub = context_->createUnboundBuffer(nonnull(buf), bytes);
      ub->send(dst, p2p_slot(tag));
    });
    return [this, ub](std::chrono::milliseconds timeout) {
      int peer = -1;
      guarded("send", [&] {
        if (!ub->waitSend(&peer, timeout.count() ? timeout : timeout_))
          EMBER_THROW(DistBackendError, "[send] the transfer was aborted");
      });
      return peer;
    };
  }

  P2PWait recv(void* buf, size_t bytes, int src, uint32_t tag) override {
    std::shared_ptr<gloo::transport::UnboundBuffer> ub;
    guarded("recv", [&] {
      ub = context_->createUnboundBuffer(nonnull(buf), bytes);
      if (src >= 0) {
        ub->recv(src, p2p_slot(tag));
      } else {
        std::vector<int> all;
        for (int r = 0; r < context_->size; ++r)
          if (r != context_->rank) all.push_back(r);
        ub->recv(all, p2p_slot(tag));
      }
    });
    return [this, ub](std::chrono::milliseconds timeout) {
      int peer = -1;
      guarded("recv", [&] {
        if (!ub->waitRecv(&peer, timeout.count() ? timeout : timeout_))
          EMBER_THROW(DistBackendError, "[recv] the transfer was aborted");
      });
      return peer;
    };
  }

 private:
  // User tags live in their own slot range, clear of the slots Gloo's collectives build.
  static uint64_t p2p_slot(uint32_t tag) { return (uint64_t{0xE3} << 56) | tag; }
  // Records (Note [Records]) inline small collectives' data: up to 64 KiB with few ranks, 16 KiB
  // with more; beyond kMaxDirectPeers the allgather's ring sends fewer messages.
  static size_t capacity_for(int size) {
    if (size < 2 || size > kMaxDirectPeers) return 0;
    return size <= 4 ? size_t{64} << 10 : size_t{16} << 10;
  }
  char* inbox(int set, int r) {
    return inboxes_.data() + (static_cast<size_t>(set) * context_->size + r) * record_capacity_;
  }
  static constexpr int kMaxDirectPeers = 16;
  static constexpr uint64_t kRecordSlot = uint64_t{0xE4} << 56;

  std::chrono::milliseconds timeout_;
  std::shared_ptr<gloo::transport::Device> device_;
  std::shared_ptr<gloo::Context> context_;
  // Declared after the context: destroyed before it.
  int set_ = 0;  // which inboxes the next records arrive in
  std::exception_ptr repost_error_;
  std::vector<char> inboxes_;
  std::unique_ptr<gloo::transport::UnboundBuffer> record_tx_;
  std::vector<std::unique_ptr<gloo::transport::UnboundBuffer>> record_rx_[2];
};

}  // namespace

std::unique_ptr<Backend> make_gloo_backend(std::shared_ptr<Store> store, int rank, int size,
                                           std::chrono::milliseconds timeout,
                                           const std::string& hostname) {
  return std::make_unique<GlooBackend>(std::move(store), rank, size, timeout, hostname);
}

}  // namespace ember::distributed::detail
