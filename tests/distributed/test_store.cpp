// Stores: c10d's semantics on every store kind, timeouts, and several threads and processes
// sharing one store (loopback only, every case bounded in seconds).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "distributed/multiprocess.h"
#include "ember/core/error.h"
#include "ember/distributed/store.h"

using namespace ember;
using namespace ember::distributed;
using namespace std::chrono_literals;
using ember::testing_dist::in_child;
using ember::testing_dist::run_children;
using ember::testing_dist::share;
using ember::testing_dist::share_port;
using ember::testing_dist::unused_port;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string temp_path(const std::string& name) {
  static std::atomic<int> counter{0};
  return (fs::temp_directory_path() /
          ("ember_store_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + name))
      .string();
}

TCPStoreOptions server_options(std::chrono::milliseconds timeout = 10s) {
  TCPStoreOptions o;
  o.port = 0;
  o.is_server = true;
  o.timeout = timeout;
  return o;
}

TCPStoreOptions client_options(uint16_t port, std::chrono::milliseconds timeout = 10s) {
  TCPStoreOptions o;
  o.port = port;
  o.timeout = timeout;
  return o;
}

// One store of each kind, each with its own cleanup.
struct StoreCase {
  std::string name;
  std::function<std::shared_ptr<Store>()> make;
  // Another handle on the same store for a second thread (a TCPStore client serialises its
  // requests, as c10d's does, so a thread blocked in get needs its own connection).
  std::function<std::shared_ptr<Store>(const std::shared_ptr<Store>&)> peer =
      [](const std::shared_ptr<Store>& s) { return s; };
};

// Joins a thread however the scope is left.
struct Joiner {
  std::thread t;
  ~Joiner() {
    if (t.joinable()) t.join();
  }
};

std::vector<StoreCase> store_cases() {
  return {
      {"HashStore", [] { return std::make_shared<HashStore>(); }},
      {"FileStore", [] { return std::make_shared<FileStore>(temp_path(".fs"), 1); }},
      {"TCPStore", [] { return std::make_shared<TCPStore>("127.0.0.1", server_options()); },
       [](const std::shared_ptr<Store>& s) -> std::shared_ptr<Store> {
         const auto port = static_cast<TCPStore&>(*s).port();
         return std::make_shared<TCPStore>("127.0.0.1", client_options(port));
       }},
      {"PrefixStore",
       [] { return std::make_shared<PrefixStore>("pre", std::make_shared<HashStore>()); }},
  };
}

class StoreSemantics : public ::testing::TestWithParam<int> {};

TEST_P(StoreSemantics, C10dSemantics) {
  const auto sc = store_cases()[GetParam()];
  SCOPED_TRACE(sc.name);
  auto store = sc.make();
  Store& s = *store;

  s.set("a", "hello");
  EXPECT_EQ(to_string(s.get("a")), "hello");
  s.set("a", Bytes{0, 255, 7});  // overwrite, raw bytes
  EXPECT_EQ(s.get("a"), (Bytes{0, 255, 7}));
  s.set("empty", "");
  EXPECT_TRUE(s.get("empty").empty());

  // add creates the key at 0, returns the running sum, stores decimal text.
  EXPECT_EQ(s.add("n", 5), 5);
  EXPECT_EQ(s.add("n", -7), -2);
  EXPECT_EQ(to_string(s.get("n")), "-2");
  s.set("text", "abc");
  EXPECT_THROW(s.add("text", 1), ValueError);

  // compare_set: a missing key with an empty `expected` is set ...
  EXPECT_EQ(to_string(s.compare_set("cs", "", "one")), "one");
  EXPECT_EQ(to_string(s.get("cs")), "one");
  // ... with a non-empty `expected` it is left missing and `expected` comes back.
  EXPECT_EQ(to_string(s.compare_set("cs_missing", "x", "y")), "x");
  EXPECT_FALSE(s.check({"cs_missing"}));
  // A match replaces; a mismatch returns the current value and changes nothing.
  EXPECT_EQ(to_string(s.compare_set("cs", "one", "two")), "two");
  EXPECT_EQ(to_string(s.compare_set("cs", "one", "three")), "two");
  EXPECT_EQ(to_string(s.get("cs")), "two");

  EXPECT_TRUE(s.check({"a", "n", "cs"}));
  EXPECT_FALSE(s.check({"a", "nope"}));
  EXPECT_TRUE(s.check({}));

  const int64_t keys = s.num_keys();
  EXPECT_EQ(keys, 5);  // a, empty, n, text, cs
  EXPECT_TRUE(s.delete_key("text"));
  EXPECT_FALSE(s.delete_key("text"));
  EXPECT_FALSE(s.check({"text"}));
  EXPECT_EQ(s.num_keys(), keys - 1);

  // wait on present keys returns at once; on a missing one it times out within bounds.
  s.wait({"a", "n"}, 100ms);
  auto t0 = Clock::now();
  try {
    s.wait({"a", "missing"}, 200ms);
    ADD_FAILURE() << "wait on a missing key returned";
  } catch (const DistStoreError& e) {
    EXPECT_NE(std::string(e.what()).find("wait timeout after 200ms"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos) << e.what();
  }
  EXPECT_GE(seconds_since(t0), 0.19);
  EXPECT_LT(seconds_since(t0), 5.0);

  // get blocks for the store's timeout; DistStoreError is a DistBackendError.
  s.set_timeout(150ms);
  t0 = Clock::now();
  EXPECT_THROW(s.get("never"), DistBackendError);
  EXPECT_GE(seconds_since(t0), 0.14);
  EXPECT_LT(seconds_since(t0), 5.0);

  // get and wait wake when another thread sets the key.
  s.set_timeout(10s);
  auto other = sc.peer(store);
  Joiner setter{std::thread([&] {
    std::this_thread::sleep_for(50ms);
    other->set("late", "here");
  })};
  t0 = Clock::now();
  EXPECT_EQ(to_string(s.get("late")), "here");
  s.wait({"late"}, Store::kNoTimeout);
  EXPECT_LT(seconds_since(t0), 5.0);
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreSemantics, ::testing::Range(0, 4),
                         [](const auto& info) { return store_cases()[info.param].name; });

TEST(PrefixStore, KeysLiveUnderThePrefix) {
  auto base = std::make_shared<HashStore>();
  PrefixStore p("job", base);
  p.set("k", "v");
  EXPECT_TRUE(base->check({"job/k"}));
  EXPECT_EQ(to_string(base->get("job/k")), "v");
  PrefixStore nested("inner", std::make_shared<PrefixStore>("outer", base));
  nested.add("c", 3);
  EXPECT_EQ(to_string(base->get("outer/inner/c")), "3");
  EXPECT_THROW(PrefixStore("x", nullptr), ValueError);
}

TEST(TCPStore, UnreachableServerTimesOutWithinBounds) {
  const uint16_t port = unused_port();
  auto t0 = Clock::now();
  try {
    TCPStore s("127.0.0.1", client_options(port, 300ms));
    ADD_FAILURE() << "connected to a port with no server";
  } catch (const DistStoreError& e) {
    EXPECT_NE(std::string(e.what()).find("timed out after 300ms"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(std::to_string(port)), std::string::npos) << e.what();
  }
  EXPECT_GE(seconds_since(t0), 0.25);
  EXPECT_LT(seconds_since(t0), 3.0);
}

TEST(TCPStore, BadArguments) {
  EXPECT_THROW(TCPStore("", server_options()), ValueError);
  EXPECT_THROW(TCPStore("127.0.0.1", client_options(0)), ValueError);
  auto o = server_options();
  o.num_workers = 0;
  EXPECT_THROW(TCPStore("127.0.0.1", o), ValueError);
  // A port that is already served cannot host a second server.
  TCPStoreServer first("127.0.0.1", 0);
  EXPECT_THROW(TCPStoreServer("127.0.0.1", first.port()), DistStoreError);
}

TEST(TCPStore, WaitForWorkers) {
  auto o = server_options(300ms);
  o.num_workers = 2;
  auto t0 = Clock::now();
  try {
    TCPStore alone("127.0.0.1", o);
    ADD_FAILURE() << "the server did not wait for its second worker";
  } catch (const DistStoreError& e) {
    EXPECT_NE(std::string(e.what()).find("1/2 clients joined"), std::string::npos) << e.what();
  }
  EXPECT_LT(seconds_since(t0), 3.0);

  // With the second worker arriving the server's constructor returns.
  const uint16_t port = unused_port();
  std::string worker_error;  // reported by the test, not thrown out of the thread
  Joiner worker{std::thread([&] {
    try {
      std::this_thread::sleep_for(100ms);
      auto c = client_options(port);
      c.num_workers = 2;
      TCPStore w("127.0.0.1", c);
      w.wait({"finished"}, 10s);
    } catch (const std::exception& e) {
      worker_error = e.what();
    }
  })};
  auto o2 = server_options();
  o2.port = port;
  o2.num_workers = 2;
  t0 = Clock::now();
  TCPStore main_store("127.0.0.1", o2);
  EXPECT_GE(seconds_since(t0), 0.09);  // it waited for the worker
  EXPECT_EQ(main_store.add("init/", 0), 2);
  main_store.set("finished", "1");
  worker.t.join();
  EXPECT_EQ(worker_error, "");
}

TEST(TCPStore, ConcurrentAddFromThreadsSumsExactly) {
  TCPStore server("127.0.0.1", server_options());
  constexpr int kThreads = 6, kAdds = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      TCPStore client("127.0.0.1", client_options(server.port()));
      for (int i = 0; i < kAdds; ++i) client.add("sum", t + 1);
    });
  }
  // One client shared by threads too: requests are serialised on its connection.
  std::vector<std::thread> shared;
  for (int t = 0; t < 3; ++t)
    shared.emplace_back([&] {
      for (int i = 0; i < kAdds; ++i) server.add("shared", 1);
    });
  for (auto& t : threads) t.join();
  for (auto& t : shared) t.join();
  EXPECT_EQ(server.add("sum", 0), kAdds * kThreads * (kThreads + 1) / 2);
  EXPECT_EQ(to_string(server.get("shared")), std::to_string(3 * kAdds));
}

TEST(TCPStore, ConcurrentAddFromProcessesSumsExactly) {
  // The server stays in this process (a child, replaying the test, gets its port).
  std::unique_ptr<TCPStore> server;
  if (!in_child()) server = std::make_unique<TCPStore>("127.0.0.1", server_options());
  const uint16_t port = share_port(server ? server->port() : 0);
  constexpr int kProcs = 4, kAdds = 100;
  auto status = run_children(kProcs, [&](int rank) {
    TCPStore client("127.0.0.1", client_options(port));
    for (int i = 0; i < kAdds; ++i) client.add("sum", 1);
    client.set("done/" + std::to_string(rank), "1");
    // Every process sees the others' keys through the server.
    client.wait({"done/0", "done/1", "done/2", "done/3"}, 20s);
    return client.add("sum", 0) == kProcs * kAdds ? 0 : 1;
  });
  for (int r = 0; r < kProcs; ++r) EXPECT_EQ(status[r], 0) << "rank " << r;
  EXPECT_EQ(server->add("sum", 0), kProcs * kAdds);
}

TEST(TCPStore, GetBlocksUntilAnotherProcessSets) {
  std::unique_ptr<TCPStore> server;
  if (!in_child()) server = std::make_unique<TCPStore>("127.0.0.1", server_options());
  const uint16_t port = share_port(server ? server->port() : 0);
  auto child = [&](int) {
    TCPStore client("127.0.0.1", client_options(port));
    std::this_thread::sleep_for(100ms);
    client.set("key", "from child");
    return 0;
  };
  if (in_child()) run_children(1, child);  // the child's part; does not return
  auto t0 = Clock::now();
  std::thread parent_side([&] {
    auto status = run_children(1, child);
    EXPECT_EQ(status[0], 0);
  });
  EXPECT_EQ(to_string(server->get("key")), "from child");
  EXPECT_GE(seconds_since(t0), 0.09);
  parent_side.join();
}

TEST(TCPStore, ReconnectsAfterTheServerRestarts) {
  auto server = std::make_unique<TCPStoreServer>("127.0.0.1", 0);
  const uint16_t port = server->port();
  TCPStore client("127.0.0.1", client_options(port, 3s));
  client.set("before", "1");
  server.reset();  // the connection breaks
  server = std::make_unique<TCPStoreServer>("127.0.0.1", port);
  // set can be repeated safely, so it reconnects and retries; the new server is empty.
  client.set("after", "2");
  EXPECT_EQ(to_string(client.get("after")), "2");
  EXPECT_FALSE(client.check({"before"}));
  // add cannot be repeated safely: a broken connection is reported, the next call reconnects.
  server.reset();
  server = std::make_unique<TCPStoreServer>("127.0.0.1", port);
  EXPECT_THROW(client.add("n", 1), DistStoreError);
  EXPECT_EQ(client.add("n", 1), 1);
}

TEST(FileStore, SharedByProcesses) {
  const std::string path = share(temp_path(".shared"));
  constexpr int kProcs = 3, kAdds = 50;
  auto child = [&](int rank) {
    FileStore s(path);
    for (int i = 0; i < kAdds; ++i) s.add("sum", rank + 1);
    s.set("rank" + std::to_string(rank), std::to_string(rank * 10));
    s.wait({"go"}, 20s);
    return to_string(s.get("rank2")) == "20" ? 0 : 1;
  };
  if (in_child()) run_children(kProcs, child);  // the child's part; does not return
  FileStore parent(path);
  // The parent releases the children once all have written.
  std::thread release([&] {
    parent.wait({"rank0", "rank1", "rank2"}, 20s);
    parent.set("go", "1");
  });
  auto status = run_children(kProcs, child);
  release.join();
  for (int r = 0; r < kProcs; ++r) EXPECT_EQ(status[r], 0) << "rank " << r;
  EXPECT_EQ(parent.add("sum", 0), kAdds * (1 + 2 + 3));
  EXPECT_EQ(parent.num_keys(), 5);  // sum, rank0..2, go
  fs::remove(path);
}

TEST(FileStore, LastWorkerRemovesTheFile) {
  const std::string path = temp_path(".cleanup");
  {
    FileStore a(path, 2);
    {
      FileStore b(path, 2);
      b.set("k", "v");
    }
    EXPECT_TRUE(fs::exists(path));
    EXPECT_EQ(to_string(a.get("k")), "v");
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_THROW(FileStore(""), ValueError);
  EXPECT_THROW(FileStore("/nonexistent_dir_ember/x"), DistStoreError);
}

}  // namespace
