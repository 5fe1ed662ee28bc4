"""PyTorch's unfused cross_entropy(linear(x, W, b), t), forward + backward, as bench_lce times
Ember's (bench/lce_side_by_side.sh). Prints one JSON line: milliseconds per step and the growth
of the peak resident set over one step (PyTorch's CPU allocator keeps no statistics)."""
import argparse
import json
import resource
import time

import torch
import torch.nn.functional as F

p = argparse.ArgumentParser()
p.add_argument("--shape", default="4096,512,32000")
p.add_argument("--threads", type=int, default=2)
p.add_argument("--min-time", type=float, default=1.0)
a = p.parse_args()
n, d, c = (int(v) for v in a.shape.split(","))
torch.set_num_threads(a.threads)
torch.manual_seed(0)
x0, w0 = torch.randn(n, d) * 0.5, torch.randn(c, d) * 0.05
b0, t = torch.randn(c) * 0.01, torch.randint(0, c, (n,))


def step():
    x, w, b = (v.detach().requires_grad_() for v in (x0, w0, b0))
    loss = F.cross_entropy(F.linear(x, w, b), t)
    loss.backward()
    return loss.item()


rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
step()  # warm-up, and the peak of one step
rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
times = []
start = time.perf_counter()
while not times or time.perf_counter() - start < a.min_time:
    t0 = time.perf_counter()
    step()
    times.append(time.perf_counter() - t0)
print(json.dumps({"torch": torch.__version__, "ms": 1e3 * min(times), "steps": len(times),
                  "peak_rss_growth_MiB": (rss1 - rss0) / 1024}))
