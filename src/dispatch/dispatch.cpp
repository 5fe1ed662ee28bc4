#include "dispatch/dispatch.h"

#include <memory>
#include <mutex>

#include "autograd/functions.h"
#include "backend/cpu/kernels.h"
#include "dispatch/backend.h"

namespace ember {

namespace detail {
std::atomic<int> g_mode_users{0};
}  // namespace detail

namespace {

// This thread's modes, innermost last. While a mode handles an op it is taken off the stack.
struct ThreadModes {
  std::vector<DispatchMode*> stack;
  int guards = 0;  // live DispatchModeGuards on this thread (counted in g_mode_users while > 0)
};
thread_local ThreadModes t_modes;

std::atomic<DispatchMode*> g_observers[kMaxDispatchObservers];
std::mutex g_observers_mutex;
// Set while an observer's own code runs, so that ops it calls do not re-enter observers.
thread_local bool t_in_observer = false;

}  // namespace

struct DispatchAccess {
  static DispatchNext next(int observer) { return DispatchNext(observer); }
  static void run_observers(OpCall& call, int from) {
    if (!t_in_observer) {
      for (int i = from; i < kMaxDispatchObservers; ++i) {
        DispatchMode* o = g_observers[i].load(std::memory_order_acquire);
        if (!o) continue;
        t_in_observer = true;
        struct Reset {
          ~Reset() { t_in_observer = false; }
        } reset;
        o->handle(call, DispatchNext(i + 1));
        return;
      }
    }
    detail::run_backend(call);
  }
};

void DispatchNext::operator()(OpCall& call) const {
  if (observer_ < 0) return detail::dispatch_with_modes(call);
  // Below an observer: later observers and the backend run as ordinary code again.
  t_in_observer = false;
  struct Restore {
    ~Restore() { t_in_observer = true; }
  } restore;
  DispatchAccess::run_observers(call, observer_);
}

namespace {

// `t`'s metadata written into `m` in place (TensorMeta::of without moving shapes: dispatch
// reads one per input of every op).
void read_meta(const Tensor& t, TensorMeta& m) {
  if (!t.defined()) return;
  const TensorImpl* impl = t.unsafeGetTensorImpl();
  if (const SymGeometry* g = impl->sym_geometry()) [[unlikely]] {
    m.sizes.append(g->sizes.begin(), g->sizes.end());
    m.strides.append(g->strides.begin(), g->strides.end());
  } else {
    m.sizes.append(impl->sizes().begin(), impl->sizes().end());
    m.strides.append(impl->strides().begin(), impl->strides().end());
  }
  m.dtype = impl->dtype();
  m.device = impl->device();
}

}  // namespace

TensorMeta TensorMeta::of(const Tensor& t) {
  TensorMeta m;
  read_meta(t, m);
  return m;
}

namespace detail {

Tensor allocate_meta(const TensorMeta& m, const char* op, int64_t storage_offset) {
  std::vector<int64_t> hints(m.sizes.size()), hint_strides(m.strides.size());
  for (size_t d = 0; d < hints.size(); ++d) hints[d] = m.sizes[d].hint();
  for (size_t d = 0; d < hint_strides.size(); ++d) hint_strides[d] = m.strides[d].hint();
  const size_t nbytes = strided_nbytes(hints, hint_strides, m.dtype, op) +
                        static_cast<size_t>(storage_offset) * element_size(m.dtype);
  return Tensor(std::make_shared<TensorImpl>(
      std::make_shared<StorageImpl>(nbytes, m.device), m.dtype,
      std::span<const SymInt>(m.sizes.data(), m.sizes.size()),
      std::span<const SymInt>(m.strides.data(), m.strides.size()), SymInt(storage_offset)));
}

std::vector<Tensor> allocate_outputs(const Primitive& prim, const std::vector<Tensor>& inputs) {
  // Inline storage for up to kInline inputs, constructed only for the inputs there are (each
  // TensorMeta's construction and destruction is a tiny op's cost; `TensorMeta()` would also
  // zero it first).
  constexpr size_t kInline = 4;
  union InlineMetas {
    InlineMetas() {}
    ~InlineMetas() {}
    TensorMeta m[kInline];
  } inline_in;
  const size_t n_inline = inputs.size() <= kInline ? inputs.size() : 0;
  for (size_t i = 0; i < n_inline; ++i) new (&inline_in.m[i]) TensorMeta;
  struct Destroy {
    TensorMeta* m;
    size_t n;
    ~Destroy() { std::destroy(m, m + n); }
  } destroy{inline_in.m, n_inline};
  std::vector<TensorMeta> heap_in(n_inline == inputs.size() ? 0 : inputs.size());
  const std::span<TensorMeta> in(n_inline == inputs.size() ? inline_in.m : heap_in.data(),
                                 inputs.size());
  bool any_meta = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    read_meta(inputs[i], in[i]);
    any_meta = any_meta || in[i].device.is_meta();
  }
  const char* op = prim.name();
  MetaList metas = prim.infer(in);
  std::vector<Tensor> outs;
  outs.reserve(metas.size());
  for (TensorMeta& m : metas) {
    // Note [Symbolic tensors]: sizes stay expressions on meta. A call that mixes meta and real
    // inputs (a fake trace's meta input indexing a real parameter) computes on meta: the tracer
    // runs it on meta twins of the real ones.
    if (any_meta) m.device = Device(kMeta);
    if (m.device.is_meta()) {
      outs.emplace_back(allocate_meta(m, op));
      continue;
    }
    std::vector<int64_t> sizes(m.sizes.size()), strides(m.strides.size());
    for (size_t d = 0; d < sizes.size(); ++d) sizes[d] = m.sizes[d].guard_int(op);
    for (size_t d = 0; d < strides.size(); ++d) strides[d] = m.strides[d].guard_int(op);
    auto storage =
        std::make_shared<StorageImpl>(strided_nbytes(sizes, strides, m.dtype, op), m.device);
    outs.emplace_back(std::make_shared<TensorImpl>(std::move(storage), m.dtype, std::move(sizes),
                                                   std::move(strides), 0));
  }
  return outs;
}

void run_backend(OpCall& call) {
  const char* op = call.prim.name();
  const Device device = call_device(call.inputs, call.outputs, op);
  if (device.is_cpu()) [[likely]] {
    cpu::run_kernel(call.prim, call.inputs, call.outputs);
  } else {
    const Backend& backend = backend_for(device, op);
    EMBER_CHECK_NOT_IMPL(backend.supports(call.prim), "[", op, "] is not implemented on ",
                         device.str());
    backend.run(call.prim, call.inputs, call.outputs);
  }
  if (call.inplace) call.outputs[0].unsafeGetTensorImpl()->bump_version();
}

void dispatch_autograd(OpCall& call) {
  autograd::record(call, [](OpCall& c) {
    if (g_mode_users.load(std::memory_order_relaxed) == 0) {
      run_backend(c);
    } else {
      dispatch_with_modes(c);
    }
  });
}

bool thread_has_mode() { return t_modes.guards > 0; }

void dispatch_with_modes(OpCall& call) {
  auto& stack = t_modes.stack;
  if (stack.empty()) return DispatchAccess::run_observers(call, 0);
  DispatchMode* mode = stack.back();
  stack.pop_back();  // off while it handles the op (and for everything it calls)
  struct Restore {
    DispatchMode* mode;
    ~Restore() { t_modes.stack.push_back(mode); }
  } restore{mode};
  mode->handle(call, DispatchAccess::next(-1));
}

}  // namespace detail

DispatchModeGuard::DispatchModeGuard(DispatchMode& mode) : mode_(&mode) {
  t_modes.stack.push_back(mode_);
  if (t_modes.guards++ == 0) detail::g_mode_users.fetch_add(1, std::memory_order_relaxed);
}

DispatchModeGuard::~DispatchModeGuard() {
  auto& stack = t_modes.stack;
  // Guards are scoped, so this mode is the innermost one (the stack is restored above it).
  if (!stack.empty() && stack.back() == mode_) stack.pop_back();
  if (--t_modes.guards == 0) detail::g_mode_users.fetch_sub(1, std::memory_order_relaxed);
}

namespace {
// Puts `to` in the first slot holding `from` (registration: from = null); false when none does.
bool replace_observer(DispatchMode* from, DispatchMode* to) {
  std::lock_guard<std::mutex> lock(g_observers_mutex);
  for (auto& slot : g_observers) {
    if (slot.load() == from) {
      slot.store(to, std::memory_order_release);
      detail::g_mode_users.fetch_add(to ? 1 : -1, std::memory_order_relaxed);
      return true;
    }
  }
  return false;
}
}  // namespace

void add_dispatch_observer(DispatchMode* observer) {
  EMBER_CHECK(replace_observer(nullptr, observer), "[dispatch] at most ", kMaxDispatchObservers,
              " dispatch observers can be registered at once");
}

void remove_dispatch_observer(DispatchMode* observer) {
  EMBER_INTERNAL_ASSERT(replace_observer(observer, nullptr),
                        "remove_dispatch_observer: observer not registered");
}

}  // namespace ember
