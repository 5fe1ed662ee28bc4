// Note [Dispatch modes]: thread-local modes with RAII guards, switched off inside their own
// handler; process-wide observers see every thread.
#include <gtest/gtest.h>

#include <mutex>
#include <thread>

#include "dispatch/dispatch.h"
#include "ember/ember.h"

namespace ember::test {
namespace {

struct NameRecorder : DispatchMode {
  std::mutex mu;
  std::vector<std::string> names;
  void handle(OpCall& call, const DispatchNext& next) override {
    {
      std::lock_guard<std::mutex> lock(mu);
      names.push_back(call.prim.name());
    }
    next(call);
  }
};

TEST(DispatchModes, GuardScopesTheMode) {
  Tensor x = ones({3});
  NameRecorder rec;
  {
    DispatchModeGuard guard(rec);
    x.exp();
  }
  x.neg();
  EXPECT_EQ(rec.names, std::vector<std::string>{"exp"});
  EXPECT_EQ(detail::g_mode_users.load(), 0);
}

TEST(DispatchModes, ModesAreThreadLocal) {
  Tensor x = ones({3});
  NameRecorder rec;
  DispatchModeGuard guard(rec);
  std::thread worker([&] { x.sin(); });  // another thread: not seen
  worker.join();
  x.cos();
  EXPECT_EQ(rec.names, std::vector<std::string>{"cos"});
}

// A mode whose handler runs ops of its own: it does not see them (no re-entry), the modes
// below it do, and next() reaches the modes below and the backend.
struct Doubler : DispatchMode {
  int handled = 0;
  void handle(OpCall& call, const DispatchNext& next) override {
    ++handled;
    next(call);
    if (std::string(call.prim.name()) == "exp") call.outputs[0].mul_(2);
  }
};

TEST(DispatchModes, ModeIsOffInsideItsHandler) {
  Tensor x = zeros({2});
  NameRecorder below;
  Doubler top;
  DispatchModeGuard g1(below);
  Tensor y;
  {
    DispatchModeGuard g2(top);
    y = x.exp();
  }
  EXPECT_EQ(top.handled, 1);  // exp only, not the mul it ran
  EXPECT_EQ(y.sum().item<double>(), 4.0);
  // The handler's mul_(2) reaches the mode below: the scalar 2 becomes a tensor through
  // dispatch (full: Fill out of place), is converted by a copy_, then multiplies.
  EXPECT_EQ(below.names, (std::vector<std::string>{"exp", "full", "copy_", "mul_", "sum"}));
}

TEST(DispatchModes, InnermostModeRunsFirst) {
  std::vector<int> order;
  struct Tag : DispatchMode {
    std::vector<int>* order;
    int id;
    Tag(std::vector<int>* o, int i) : order(o), id(i) {}
    void handle(OpCall& call, const DispatchNext& next) override {
      order->push_back(id);
      next(call);
    }
  } outer(&order, 1), inner(&order, 2);
  Tensor x = ones({1});
  DispatchModeGuard a(outer);
  DispatchModeGuard b(inner);
  x.neg();
  EXPECT_EQ(order, (std::vector<int>{2, 1}));
}

TEST(DispatchModes, ObserversSeeEveryThread) {
  Tensor x = ones({3});
  NameRecorder obs;
  add_dispatch_observer(&obs);
  std::thread worker([&] { x.sin(); });
  worker.join();
  x.cos();
  remove_dispatch_observer(&obs);
  x.tan();
  std::sort(obs.names.begin(), obs.names.end());
  EXPECT_EQ(obs.names, (std::vector<std::string>{"cos", "sin"}));
  EXPECT_EQ(detail::g_mode_users.load(), 0);
}

TEST(DispatchModes, ExceptionsRestoreTheStack) {
  struct Thrower : DispatchMode {
    int calls = 0;
    void handle(OpCall& call, const DispatchNext& next) override {
      if (++calls == 1) EMBER_THROW(ValueError, "[thrower] first op refused");
      next(call);
    }
  } thrower;
  Tensor x = ones({2});
  {
    DispatchModeGuard guard(thrower);
    EXPECT_THROW(x.neg(), ValueError);
    EXPECT_EQ(x.neg().sum().item<double>(), -2.0);  // the mode is back on the stack
  }
  EXPECT_EQ(thrower.calls, 3);  // neg (refused), neg, sum
  EXPECT_EQ(detail::g_mode_users.load(), 0);
}

}  // namespace
}  // namespace ember::test
