// Compile a small MLP with ember::compile, run it on a few batch sizes, and print what the
// compiler did (captures, compiles, recompiles and why). Exits non-zero when a compiled result
// differs from eager. Run with EMBER_LOGS=graph,recompiles to see the graphs and the reasons.
#include <ember/compiler.h>
#include <ember/ember.h>
#include <ember/nn.h>

#include <cstdio>

int main() {
  ember::manual_seed(0);
  ember::nn::Sequential mlp(ember::nn::Linear(16, 32), ember::nn::ReLU(), ember::nn::Linear(32, 4));
  auto model = ember::compile(mlp);
  ember::NoGradGuard no_grad;
  bool same = true;
  // Batch 8 compiles static; 16 recompiles once with the batch dynamic; 32 and 64 reuse that.
  for (int64_t batch : {8, 16, 32, 64}) {
    const ember::Tensor x = ember::randn({batch, 16});
    same = same && model(x).allclose(mlp->forward(x), 1e-5, 1e-6);
  }
  const ember::compiler::Stats s = ember::compiler::stats();
  std::printf("captures %lld, compiles %lld, recompiles %lld, cache hits %lld; compiled %s eager\n",
              static_cast<long long>(s.captures), static_cast<long long>(s.compiles),
              static_cast<long long>(s.recompiles), static_cast<long long>(s.cache_hits),
              same ? "equals" : "DIFFERS FROM");
  for (const std::string& reason : s.recompile_reasons) {
    std::printf("recompiled because %s\n", reason.c_str());
  }
  return same ? 0 : 1;
}
