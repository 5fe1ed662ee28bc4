#!/usr/bin/python3
"""torch.linalg on the shapes of bench/bench_linalg.cpp; prints one JSON object per line:
{"name": "BM_Svd/4096/8", "ms": ...}. Run with Debian's PyTorch: /usr/bin/python3."""
import argparse
import json
import time

import torch


def spd(b, n):
    x = torch.randn(b, n, n)
    return x @ x.mT + torch.eye(n) * n


def timed(fn, min_time=0.5):
    fn()  # warm-up
    runs, start = 0, time.perf_counter()
    while True:
        fn()
        runs += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_time and runs >= 3:
            return elapsed / runs * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    cases = {
        "BM_Svd": (lambda b, n: torch.randn(b, n, n), lambda a: torch.linalg.svd(a, full_matrices=False)),
        "BM_Eigh": (spd, torch.linalg.eigh),
        "BM_Qr": (lambda b, n: torch.randn(b, n, n), torch.linalg.qr),
        "BM_Cholesky": (spd, torch.linalg.cholesky),
    }
    shapes = [(4096, 8), (4096, 16), (1, 1024)]
    for name, (make, op) in cases.items():
        for b, n in shapes:
            a = make(b, n)
            print(json.dumps({"name": f"{name}/{b}/{n}", "ms": timed(lambda: op(a))}), flush=True)
    a, rhs = spd(1, 1024), torch.randn(1, 1024, 1)
    print(json.dumps({"name": "BM_Solve/1/1024", "ms": timed(lambda: torch.linalg.solve(a, rhs))}))


if __name__ == "__main__":
    main()
