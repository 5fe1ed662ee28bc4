#include "dispatch/dispatch.h"

#include "autograd/functions.h"

#include <algorithm>
#include <mutex>

namespace ember {
namespace {
std::mutex g_modes_mutex;
std::vector<DispatchMode*> g_modes;  // innermost first
}  // namespace

namespace detail {
std::atomic<int> g_num_modes{0};

void run_backend(OpCall& call) {
  for (const auto& t : call.inputs) {
    if (t.defined() && !t.device().is_cpu()) check_device_available(t.device(), call.prim.name());
  }
  call.prim.eval_cpu(call.inputs, call.outputs);
  if (call.inplace) call.outputs[0].unsafeGetTensorImpl()->bump_version();
}

void dispatch_autograd(OpCall& call) {
  autograd::record(call, [](OpCall& c) {
    if (g_num_modes.load(std::memory_order_relaxed) == 0) {
      run_backend(c);
    } else {
      dispatch_with_modes(c);
    }
  });
}

void dispatch_with_modes(OpCall& call) {
  std::vector<DispatchMode*> modes;
  {
    std::lock_guard<std::mutex> lock(g_modes_mutex);
    modes = g_modes;
  }
  // next(level) runs mode `level - 1` (outermost = last), down to the backend at level 0.
  std::function<void(OpCall&, size_t)> run_level = [&](OpCall& c, size_t level) {
    if (level == 0) return run_backend(c);
    modes[level - 1]->handle(c, [&](OpCall& inner) { run_level(inner, level - 1); });
  };
  run_level(call, modes.size());
}
}  // namespace detail

void push_dispatch_mode(DispatchMode* mode) {
  std::lock_guard<std::mutex> lock(g_modes_mutex);
  g_modes.push_back(mode);
  detail::g_num_modes.store(static_cast<int>(g_modes.size()));
}

void pop_dispatch_mode(DispatchMode* mode) {
  std::lock_guard<std::mutex> lock(g_modes_mutex);
  auto it = std::find(g_modes.begin(), g_modes.end(), mode);
  EMBER_INTERNAL_ASSERT(it != g_modes.end(), "pop_dispatch_mode: mode not registered");
  g_modes.erase(it);
  detail::g_num_modes.store(static_cast<int>(g_modes.size()));
}

}  // namespace ember
