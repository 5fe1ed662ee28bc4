"""bench_compile's cases in PyTorch (eager: Debian's PyTorch 1.13 has no torch.compile), timed the
same way: median of --repeat calls after two warm-up calls. Prints one line per case, in
bench_compile's order: `<case index> <milliseconds>` (bench/compile_side_by_side.sh joins them)."""
import argparse
import time

import torch
import torch.nn.functional as F

p = argparse.ArgumentParser()
p.add_argument("--repeat", type=int, default=10)
p.add_argument("--threads", type=int, default=2)
a = p.parse_args()
torch.set_num_threads(a.threads)
torch.manual_seed(0)
x, y = torch.randn(4096, 4096), torch.randn(4096, 1024)
cases = [
    lambda: ((x * 2 + 1).relu() * 3).exp(),
    lambda: ((x * 2 + 1).relu() * 3).exp().sum(-1),
    lambda: F.softmax(y, -1),
    lambda: (y * (y > 0).to(torch.float32)).sum(0),
    lambda: F.layer_norm(y, [1024]),
]


def median_ms(f):
    for _ in range(2):
        f()
    times = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        f()
        times.append(1e3 * (time.perf_counter() - t0))
    return sorted(times)[len(times) // 2]


with torch.no_grad():
    for i, f in enumerate(cases):
        print(i, f"{median_ms(f):.3f}")
