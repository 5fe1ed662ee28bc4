#!/usr/bin/env python3
"""PyTorch's side of bench/bench_ddp.cpp: the same MLP step (784-512-512-10, batch 256 per rank,
SGD, one thread per rank, gloo on loopback) as local / ddp / sync_after, the same interleaving and
the same report (median step time of the slowest rank). Run by bench/ddp_bench.sh.

    ddp_peer.py [--ranks 2] [--steps 20] [--rounds 3] [--json FILE]
"""
import argparse
import json
import os
import socket
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F

VARIANTS = ["local", "ddp", "sync_after"]


def run_rank(rank, args, port):
    torch.set_num_threads(1)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=args.ranks)
    torch.manual_seed(100)
    mlp = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(),
                              torch.nn.Linear(512, 512), torch.nn.ReLU(),
                              torch.nn.Linear(512, 10))
    ddp = torch.nn.parallel.DistributedDataParallel(mlp)
    opt = torch.optim.SGD(mlp.parameters(), lr=1e-3)
    torch.manual_seed(1000 + rank)
    x, y = torch.randn(256, 784), torch.randint(0, 10, (256,))

    def step(variant):
        opt.zero_grad()
        if variant == 1:
            F.cross_entropy(ddp(x), y).backward()
        else:
            F.cross_entropy(mlp(x), y).backward()
            if variant == 2:
                for p in mlp.parameters():  # gloo has no ReduceOp.AVG in PyTorch
                    dist.all_reduce(p.grad)
                    p.grad.div_(args.ranks)
        opt.step()

    for v in range(3):
        step(v)
    ms = [[], [], []]
    for _ in range(args.rounds):
        for v in range(3):
            dist.barrier()
            for _ in range(args.steps):
                t0 = time.perf_counter()
                step(v)
                ms[v].append((time.perf_counter() - t0) * 1e3)
    med = torch.tensor([statistics.median_low(m) for m in ms], dtype=torch.float64)
    dist.all_reduce(med, dist.ReduceOp.MAX)
    if rank == 0:
        m = med.tolist()
        print(f"PyTorch {torch.__version__} DDP MLP step ({args.ranks} ranks x 1 thread, gloo; "
              f"median of {args.steps * args.rounds} steps, slowest rank)")
        print(f"{'variant':<12} {'step ms':>10} {'vs local':>10}")
        for name, t in zip(VARIANTS, m):
            print(f"{name:<12} {t:10.3f} {t / m[0]:10.3f}")
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"case": "ddp_mlp_step", "peer": "pytorch", "ranks": args.ranks,
                           **{f"{n}_ms": t for n, t in zip(VARIANTS, m)}}, f)
                f.write("\n")
    dist.barrier()
    # Leave at once: PyTorch 1.13's gloo teardown at interpreter exit can hang the spawned ranks.
    sys.stdout.flush()
    os._exit(0)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--json", default="")
    args = p.parse_args()
    with socket.socket() as s:  # a free loopback port for the rendezvous
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(run_rank, args=(args, port), nprocs=args.ranks, join=True)


if __name__ == "__main__":
    main()
