// ProcessGroup (its worker thread) and the registry of groups: init_process_group's rendezvous
// (env://, tcp://, file://, a given store), new_group, destroy_process_group.
#include <ember/core/error.h>
#include <ember/distributed/process_group.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <set>
#include <thread>

#include "distributed/backend.h"

namespace ember::distributed {

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM:
      return "SUM";
    case ReduceOp::AVG:
      return "AVG";
    case ReduceOp::PRODUCT:
      return "PRODUCT";
    case ReduceOp::MIN:
      return "MIN";
    case ReduceOp::MAX:
      return "MAX";
    case ReduceOp::BAND:
      return "BAND";
    case ReduceOp::BOR:
      return "BOR";
    case ReduceOp::BXOR:
      return "BXOR";
  }
  return "?";
}

// ---- the group's thread ----

struct ProcessGroup::Queue {
  using Task = std::pair<std::shared_ptr<Work>, std::function<void()>>;
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<Task> tasks;
  bool busy = false;  // a task runs (on the group's thread or inline on a caller's)
  bool stopping = false;
  std::thread thread;

  template <typename F>
  static void execute(Work& work, F&& fn) {
    work.mark_started();
    try {
      fn();
      work.finish();
    } catch (...) {
      work.finish(std::current_exception());
    }
  }

  void loop() {
    while (true) {
      Task task;
      {
        std::unique_lock<std::mutex> lock(mutex);
        cv.wait(lock, [&] { return stopping || (!tasks.empty() && !busy); });
        if (tasks.empty()) return;
        task = std::move(tasks.front());
        tasks.pop_front();
        busy = true;
      }
      execute(*task.first, task.second);
      std::lock_guard<std::mutex> lock(mutex);
      busy = false;
    }
  }
};

ProcessGroup::ProcessGroup(std::vector<int64_t> ranks, int64_t rank, std::string backend_name,
                           std::unique_ptr<detail::Backend> backend,
                           std::chrono::milliseconds timeout)
    : ranks_(std::move(ranks)),
      rank_(rank),
      backend_name_(std::move(backend_name)),
      backend_(std::move(backend)),
      timeout_(timeout),
      queue_(std::make_unique<Queue>()) {
  if (backend_) queue_->thread = std::thread([q = queue_.get()] { q->loop(); });
}

ProcessGroup::~ProcessGroup() {
  std::deque<Queue::Task> dropped;
  {
    std::lock_guard<std::mutex> lock(queue_->mutex);
    queue_->stopping = true;
    dropped.swap(queue_->tasks);  // not started: they fail rather than run against a closing group
  }
  queue_->cv.notify_all();
  for (auto& [work, fn] : dropped)
    work->finish(std::make_exception_ptr(DistBackendError(
        std::string("[") + work->op() + "] the process group was destroyed before it ran")));
  if (!queue_->thread.joinable()) return;
  // Released by the last task's captures on the group's own thread: it cannot join itself.
  if (queue_->thread.get_id() == std::this_thread::get_id())
    queue_->thread.detach();
  else
    queue_->thread.join();
}

int64_t ProcessGroup::group_rank(int64_t global_rank) const {
  auto it = std::find(ranks_.begin(), ranks_.end(), global_rank);
  return it == ranks_.end() ? -1 : it - ranks_.begin();
}

std::shared_ptr<Work> ProcessGroup::enqueue(const char* op,
                                            std::function<void(detail::Backend&)> fn,
                                            bool blocking) {
  if (blocking) {
    auto call = [](void* f, detail::Backend& b) {
      (*static_cast<std::function<void(detail::Backend&)>*>(f))(b);
    };
    if (auto work = run_if_idle(op, call, &fn)) return work;
  }
  EMBER_CHECK(backend_ != nullptr, "[", op, "] this process is not a member of the group");
  auto work = std::make_shared<Work>(op);
  std::lock_guard<std::mutex> lock(queue_->mutex);
  EMBER_CHECK(!queue_->stopping, "[", op, "] the process group was destroyed");
  queue_->tasks.emplace_back(work, [this, fn = std::move(fn)] { fn(*backend_); });
  queue_->cv.notify_one();
  return work;
}

std::shared_ptr<Work> ProcessGroup::run_if_idle(const char* op,
                                                void (*call)(void*, detail::Backend&), void* fn) {
  EMBER_CHECK(backend_ != nullptr, "[", op, "] this process is not a member of the group");
  {
    std::lock_guard<std::mutex> lock(queue_->mutex);
    EMBER_CHECK(!queue_->stopping, "[", op, "] the process group was destroyed");
    if (!queue_->tasks.empty() || queue_->busy) return nullptr;
    queue_->busy = true;
  }
  auto work = std::make_shared<Work>(op);
  Queue::execute(*work, [&] { call(fn, *backend_); });
  bool queued = false;
  {
    std::lock_guard<std::mutex> lock(queue_->mutex);
    queue_->busy = false;
    queued = !queue_->tasks.empty();
  }
  // Work queued meanwhile by other threads. Only then: waking the idle group thread for nothing
  // costs two context switches per call, more than a small collective.
  if (queued) queue_->cv.notify_one();
  return work;
}

detail::Backend& ProcessGroup::backend() {
  EMBER_CHECK(backend_ != nullptr, "[ProcessGroup] this process is not a member of the group");
  return *backend_;
}

// ---- registry ----

namespace {

struct World {
  std::mutex mutex;
  std::shared_ptr<Store> store;
  GroupPtr default_pg;
  std::vector<GroupPtr> groups;  // made by new_group
  int64_t groups_made = 0;
  std::string hostname;  // where peers reach this process
};

World& world() {
  static World w;
  return w;
}

const char* kNotInitialized =
    "Default process group has not been initialized, please make sure to call "
    "init_process_group.";

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

int64_t env_int(const char* name, const char* alt) {
  std::string v = env(name);
  if (v.empty() && alt) v = env(alt);
  EMBER_CHECK_VALUE(!v.empty(),
                    "[init_process_group] Error initializing torch.distributed using env:// "
                    "rendezvous: environment variable ",
                    name, " expected, but not set");
  char* end = nullptr;
  long long n = std::strtoll(v.c_str(), &end, 10);
  EMBER_CHECK_VALUE(*end == '\0', "[init_process_group] environment variable ", name,
                    " must be an integer, got '", v, "'");
  return n;
}

bool is_loopback(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1";
}

std::string local_hostname() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || !buf[0]) return "127.0.0.1";
  return buf;
}

// The backend for the members `ranks` (global ranks); `rank` is this process's index among them.
std::unique_ptr<detail::Backend> make_backend(const std::string& backend,
                                              std::shared_ptr<Store> store,
                                              const std::vector<int64_t>& ranks, int64_t rank,
                                              std::chrono::milliseconds timeout,
                                              const std::string& hostname) {
  std::unique_ptr<detail::Backend> be;
  if (backend == "mpi") {
    be = detail::make_mpi_backend(ranks, timeout);
  } else {
    EMBER_CHECK_NOT_IMPL(store != nullptr,
                         "[new_group] a gloo group needs the store of a gloo "
                         "default group; this job was started with mpi");
    be = detail::make_gloo_backend(std::move(store), static_cast<int>(rank),
                                   static_cast<int>(ranks.size()), timeout, hostname);
  }
  // Nobody leaves the rendezvous (and rank 0 cannot take the store down) before all are in.
  be->barrier();
  return be;
}

void check_backend_name(const std::string& backend) {
  EMBER_CHECK_VALUE(backend == "gloo" || backend == "mpi",
                    "[init_process_group] Invalid backend: '", backend, "' (expected gloo or mpi)");
}

void init_with_store(const std::string& backend, std::shared_ptr<Store> store, int64_t rank,
                     int64_t world_size, std::chrono::milliseconds timeout,
                     const std::string& hostname) {
  World& w = world();
  std::vector<int64_t> ranks(static_cast<size_t>(world_size));
  for (int64_t r = 0; r < world_size; ++r) ranks[r] = r;
  auto prefixed = store ? std::make_shared<PrefixStore>("default_pg", store) : nullptr;
  auto be = make_backend(backend, prefixed, ranks, rank, timeout, hostname);
  w.default_pg =
      std::make_shared<ProcessGroup>(std::move(ranks), rank, backend, std::move(be), timeout);
  w.store = std::move(store);
  w.hostname = hostname;
  w.groups_made = 0;
}

// MPI knows each process's rank and the world's size; anything given must agree with it.
void init_mpi(int64_t rank, int64_t world_size, std::chrono::milliseconds timeout) {
  int r = 0, n = 0;
  detail::mpi_world(r, n);
  EMBER_CHECK_VALUE((rank < 0 || rank == r) && (world_size < 0 || world_size == n),
                    "[init_process_group] the mpi backend takes rank and world_size from MPI (", r,
                    " of ", n, "), got rank ", rank, " and world_size ", world_size);
  init_with_store("mpi", nullptr, r, n, timeout, "");
}

void check_rank_and_size(int64_t rank, int64_t world_size) {
  EMBER_CHECK_VALUE(world_size >= 1, "[init_process_group] world_size must be positive, got ",
                    world_size);
  EMBER_CHECK_VALUE(rank >= 0 && rank < world_size,
                    "[init_process_group] rank must be in [0, world_size), got rank ", rank,
                    " and world_size ", world_size);
}

// "HOST:PORT" of a tcp:// method or of MASTER_ADDR/MASTER_PORT.
std::shared_ptr<Store> tcp_store(const std::string& host, int64_t port, int64_t rank,
                                 int64_t world_size, std::chrono::milliseconds timeout) {
  EMBER_CHECK_VALUE(port >= 1 && port <= 65535,
                    "[init_process_group] port must be in [1, 65535], got ", port);
  TCPStoreOptions o;
  o.port = static_cast<uint16_t>(port);
  o.is_server = rank == 0;
  o.num_workers = world_size;
  o.timeout = timeout;
  return std::make_shared<TCPStore>(host, o);
}

}  // namespace

void init_process_group(const std::string& backend, const std::string& init_method, int64_t rank,
                        int64_t world_size, std::chrono::milliseconds timeout) {
  check_backend_name(backend);
  World& w = world();
  std::lock_guard<std::mutex> lock(w.mutex);
  EMBER_CHECK(!w.default_pg,
              "[init_process_group] trying to initialize the default process group twice!");
  EMBER_CHECK_VALUE(timeout.count() > 0, "[init_process_group] timeout must be positive, got ",
                    timeout.count(), "ms");
  if (backend == "mpi") return init_mpi(rank, world_size, timeout);
  std::shared_ptr<Store> store;
  std::string host = "127.0.0.1";
  const std::string scheme = init_method.substr(0, init_method.find("://"));
  if (init_method == "env://" || init_method.empty()) {
    // Open MPI's launcher sets its own variables; `ember run` and torchrun set RANK/WORLD_SIZE.
    const bool mpi = !env("OMPI_COMM_WORLD_RANK").empty();
    if (rank < 0) rank = env_int("RANK", "OMPI_COMM_WORLD_RANK");
    if (world_size < 0) world_size = env_int("WORLD_SIZE", "OMPI_COMM_WORLD_SIZE");
    check_rank_and_size(rank, world_size);
    host = env("MASTER_ADDR");
    if (host.empty() && mpi) host = "127.0.0.1";
    EMBER_CHECK_VALUE(!host.empty(),
                      "[init_process_group] Error initializing torch.distributed using env:// "
                      "rendezvous: environment variable MASTER_ADDR expected, but not set");
    const int64_t port =
        env("MASTER_PORT").empty() && mpi ? 29500 : env_int("MASTER_PORT", nullptr);
    store = tcp_store(host, port, rank, world_size, timeout);
  } else if (scheme == "tcp" && init_method.size() > 6) {
    EMBER_CHECK_VALUE(rank >= 0 && world_size >= 1,
                      "[init_process_group] tcp:// needs rank and world_size");
    check_rank_and_size(rank, world_size);
    std::string hp = init_method.substr(6);
    auto colon = hp.rfind(':');
    EMBER_CHECK_VALUE(colon != std::string::npos && colon > 0,
                      "[init_process_group] tcp:// needs HOST:PORT, got '", init_method, "'");
    host = hp.substr(0, colon);
    char* end = nullptr;
    int64_t port = std::strtoll(hp.c_str() + colon + 1, &end, 10);
    EMBER_CHECK_VALUE(*end == '\0', "[init_process_group] bad port in '", init_method, "'");
    store = tcp_store(host, port, rank, world_size, timeout);
  } else if (scheme == "file" && init_method.size() > 7) {
    EMBER_CHECK_VALUE(rank >= 0 && world_size >= 1,
                      "[init_process_group] file:// needs rank and world_size");
    check_rank_and_size(rank, world_size);
    store = std::make_shared<FileStore>(init_method.substr(7), world_size);
    store->set_timeout(timeout);
  } else {
    EMBER_THROW(ValueError, "[init_process_group] No rendezvous handler for ", init_method);
  }
  init_with_store(backend, std::move(store), rank, world_size, timeout,
                  is_loopback(host) ? "127.0.0.1" : local_hostname());
}

void init_process_group(const std::string& backend, std::shared_ptr<Store> store, int64_t rank,
                        int64_t world_size, std::chrono::milliseconds timeout) {
  check_backend_name(backend);
  EMBER_CHECK_VALUE(store != nullptr, "[init_process_group] expected a store, got null");
  check_rank_and_size(rank, world_size);
  World& w = world();
  std::lock_guard<std::mutex> lock(w.mutex);
  EMBER_CHECK(!w.default_pg,
              "[init_process_group] trying to initialize the default process group twice!");
  if (backend == "mpi") return init_mpi(rank, world_size, timeout);
  auto* tcp = dynamic_cast<TCPStore*>(store.get());
  const bool local = !tcp || is_loopback(tcp->host());
  init_with_store(backend, std::move(store), rank, world_size, timeout,
                  local ? "127.0.0.1" : local_hostname());
}

bool is_initialized() {
  World& w = world();
  std::lock_guard<std::mutex> lock(w.mutex);
  return w.default_pg != nullptr;
}

GroupPtr get_default_group() {
  World& w = world();
  std::lock_guard<std::mutex> lock(w.mutex);
  EMBER_CHECK(w.default_pg != nullptr, "[distributed] ", kNotInitialized);
  return w.default_pg;
}

GroupPtr new_group(const std::vector<int64_t>& ranks, std::chrono::milliseconds timeout,
                   const std::string& backend) {
  World& w = world();
  std::lock_guard<std::mutex> lock(w.mutex);
  EMBER_CHECK(w.default_pg != nullptr, "[new_group] ", kNotInitialized);
  const int64_t world_size = w.default_pg->size();
  std::vector<int64_t> members = ranks;
  if (members.empty())
    for (int64_t r = 0; r < world_size; ++r) members.push_back(r);
  std::sort(members.begin(), members.end());
  for (int64_t r : members)
    EMBER_CHECK_VALUE(r >= 0 && r < world_size, "[new_group] rank ", r,
                      " is out of range for world_size ", world_size);
  EMBER_CHECK_VALUE(std::adjacent_find(members.begin(), members.end()) == members.end(),
                    "[new_group] ranks must be unique");
  const std::string name = backend.empty() ? w.default_pg->backend_name() : backend;
  check_backend_name(name);
  // Every rank counts groups alike, so the n-th group's store prefix agrees across ranks.
  const std::string prefix = std::to_string(++w.groups_made);
  const int64_t me =
      std::find(members.begin(), members.end(), w.default_pg->rank()) - members.begin();
  const bool member = me < static_cast<int64_t>(members.size());
  std::unique_ptr<detail::Backend> be;
  if (member)
    be = make_backend(name, w.store ? std::make_shared<PrefixStore>(prefix, w.store) : nullptr,
                      members, me, timeout, w.hostname);
  auto g = std::make_shared<ProcessGroup>(members, member ? me : -1, name, std::move(be), timeout);
  w.groups.push_back(g);
  return g;
}

namespace {
GroupPtr resolve(const GroupPtr& group) { return group ? group : get_default_group(); }
}  // namespace

int64_t get_rank(const GroupPtr& group) { return resolve(group)->rank(); }

int64_t get_world_size(const GroupPtr& group) {
  auto g = resolve(group);
  return g->is_member() ? g->size() : -1;
}

std::string get_backend(const GroupPtr& group) { return resolve(group)->backend_name(); }

void destroy_process_group(const GroupPtr& group) {
  World& w = world();
  std::vector<GroupPtr> doomed;
  std::shared_ptr<Store> store;
  {
    std::lock_guard<std::mutex> lock(w.mutex);
    EMBER_CHECK(w.default_pg != nullptr, "[destroy_process_group] ", kNotInitialized);
    if (!group || group == w.default_pg) {
      doomed.swap(w.groups);
      doomed.push_back(std::move(w.default_pg));
      store = std::move(w.store);
      w.default_pg = nullptr;
    } else {
      auto it = std::find(w.groups.begin(), w.groups.end(), group);
      EMBER_CHECK_VALUE(it != w.groups.end(),
                        "[destroy_process_group] the group is not registered (destroyed already?)");
      doomed.push_back(*it);
      w.groups.erase(it);
    }
  }
  // Outside the lock: a group's destructor joins its thread. Groups other code still holds stay
  // usable until released, as in c10d.
  doomed.clear();
}

bool is_gloo_available() { return true; }
bool is_mpi_available() { return true; }

}  // namespace ember::distributed
