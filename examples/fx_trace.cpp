// Capture a small model with make_fx: print its graph (one line per primitive, with shapes) and
// its JSON form, read the JSON back, and run the graph against the eager model; then trace it
// again with a dynamic batch (ember::Dim) and run that one graph on several batch sizes. Exits
// non-zero when a graph's result differs from eager. Usage: ember_fx_trace [--json]
#include <ember/compiler.h>
#include <ember/ember.h>
#include <ember/nn.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  using ember::Tensor;
  ember::manual_seed(0);
  ember::nn::Sequential model(ember::nn::Linear(4, 8), ember::nn::ReLU(), ember::nn::Linear(8, 2));
  auto forward = [&](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {model->forward(xs[0]).softmax(-1)};
  };
  const Tensor x = ember::randn({3, 4});
  // Parameters become get_attr nodes named by their path ("0.weight").
  ember::fx::GraphModule gm = ember::make_fx(*model, forward, {x});
  std::printf("%s\n", gm.graph().to_string().c_str());
  const std::string json = gm.graph().to_json();
  if (argc > 1 && std::strcmp(argv[1], "--json") == 0) std::printf("%s\n\n", json.c_str());
  const ember::fx::GraphModule replayed(ember::fx::Graph::from_json(json), gm.attrs());
  const Tensor x2 = ember::randn({3, 4});
  const Tensor got = replayed({x2})[0], want = forward({x2})[0];
  const bool same = got.equal(want);
  std::printf("%zu nodes, %zu bytes of JSON; graph %s eager\n", gm.graph().nodes().size(),
              json.size(), same ? "equals" : "DIFFERS FROM");

  // Dynamic batch: sizes become expressions of the symbol s0, and one graph runs any batch.
  const ember::Dim batch("batch", 2, 4096);
  const ember::fx::GraphModule dyn = ember::make_fx(*model, forward, {x}, {.dynamic = {{{0, batch}}}});
  std::printf("\n%s\n", dyn.graph().to_string().c_str());
  bool all_same = same;
  for (int64_t n : {2, 7, 100}) {
    const Tensor xn = ember::randn({n, 4});
    const bool ok = dyn({xn})[0].equal(forward({xn})[0]);
    std::printf("batch %lld: graph %s eager\n", static_cast<long long>(n),
                ok ? "equals" : "DIFFERS FROM");
    all_same = all_same && ok;
  }
  return all_same ? 0 : 1;
}
