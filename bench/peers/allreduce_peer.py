#!/usr/bin/env python3
"""PyTorch's side of bench/allreduce_bench.sh: torch.distributed.all_reduce (float32 SUM, gloo,
one thread per rank) measured as bench/bench_allreduce.cpp measures Ember: per iteration a
barrier, then one timed blocking all_reduce; each rank's median, the slowest rank's reported.
Started once per rank by `ember run` (env:// variables).

    allreduce_peer.py [--cases BYTES:ITERS,...]
"""
import argparse
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist


def parse_cases(spec):
    cases = []
    for item in spec.split(","):
        nbytes, iters = (int(v) for v in item.split(":"))
        if nbytes <= 0 or nbytes % 4 or iters < 1:
            raise ValueError(f"bad case {item!r}")
        cases.append((nbytes, iters))
    return cases


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cases", default="4096:20")
    cases = parse_cases(p.parse_args().cases)
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    for nbytes, iters in cases:
        t = torch.ones(nbytes // 4)
        us = []
        for it in range(-1, iters):  # iteration -1 warms up
            dist.barrier()
            t0 = time.perf_counter()
            dist.all_reduce(t)
            if it >= 0:
                us.append((time.perf_counter() - t0) * 1e6)
        med = torch.tensor([statistics.median_high(us)], dtype=torch.float64)
        dist.all_reduce(med, dist.ReduceOp.MAX)
        if dist.get_rank() == 0:
            print(f"RESULT bytes={nbytes} iters={iters} us={med.item():.1f}", flush=True)
    dist.barrier()
    # Leave at once: PyTorch 1.13's gloo teardown at interpreter exit can hang.
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
