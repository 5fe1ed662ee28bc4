#!/usr/bin/python3
"""PyTorch side of scripts/bench.sh: the cases of bench/bench_ops.cpp and bench/bench_steps.cpp
with the same inputs (pattern() reproduces bench_common.h's bit for bit) and the same model.

Prints one JSON line per case: {"case", "threads", "ms", "ms_median", "reps"} where ms is the best
of --reps repetitions, each the mean time per operation over at least --min-time seconds (as
Google Benchmark's repetitions on the Ember side). With --check FILE, writes each case's check
record instead (a float64 sum and a fixed sample of every output; see bench_common.h).
Run with Debian's PyTorch: /usr/bin/python3 bench/peers/ops_peer.py --cases softmax_fwd"""
import argparse
import json
import math
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

ROWS, COLS = 4096, 1024  # the normalisation and cross_entropy shape
ELEMS = 16 * 1024 * 1024  # the elementwise cases
RED = 4096  # the reductions' [RED, RED]
ATT = (16, 4, 128, 64)  # attention: batch, heads, tokens, head dim
INNER = 1000  # tiny adds per timed call, as bench_steps.cpp's kInner


def _hash(n, seed):
    return (torch.arange(n, dtype=torch.int64) * 2654435761 + seed) % 4294967296


def _unit(n, seed, lo, hi):
    return lo + (hi - lo) * (_hash(n, seed).double() / 4294967296.0)


def pattern(shape, seed, lo=-2.0, hi=2.0):
    """bench_common.h's pattern(): the same float32 values."""
    return _unit(math.prod(shape), seed, lo, hi).float().view(shape)


def pattern_rows(rows, cols, seed, lo, hi):
    """pattern() scaled by 1 + r / rows in row r (bench_common.h's pattern_rows)."""
    v = _unit(rows * cols, seed, lo, hi).view(rows, cols)
    return (v * (1.0 + torch.arange(rows, dtype=torch.float64) / rows).view(rows, 1)).float()


def pattern_classes(n, classes, seed):
    return _hash(n, seed) % classes


def grad_body(y, inputs, seed):
    """The backward alone: the graph is built once and kept (retain_graph)."""
    gy = pattern(list(y.shape), seed, -1.0, 1.0)
    return lambda: list(torch.autograd.grad(y, inputs, gy, retain_graph=True))


def leaf(shape, seed, lo=-2.0, hi=2.0):
    return pattern(shape, seed, lo, hi).requires_grad_()


def rms_norm(x, w):
    # PyTorch 1.13 has no F.rms_norm (2.4 added it): the composition a user writes.
    eps = torch.finfo(x.dtype).eps
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def norm_cases():
    def ln_inputs():
        return (leaf([ROWS, COLS], 1), leaf([COLS], 2, 0.5, 1.5), leaf([COLS], 3, -0.5, 0.5))

    def fwd(f):
        return lambda: (lambda x: lambda: [f(x)])(pattern([ROWS, COLS], 1))

    def bwd(f):
        return lambda: (lambda x: grad_body(f(x), [x], 9))(leaf([ROWS, COLS], 1))

    def ln_fwd():
        x, w, b = (t.detach() for t in ln_inputs())
        return lambda: [F.layer_norm(x, (COLS,), w, b)]

    def ln_bwd():
        x, w, b = ln_inputs()
        return grad_body(F.layer_norm(x, (COLS,), w, b), [x, w, b], 9)

    def rms_fwd():
        x, w = pattern([ROWS, COLS], 1), pattern([COLS], 2, 0.5, 1.5)
        return lambda: [rms_norm(x, w)]

    def rms_bwd():
        x, w = leaf([ROWS, COLS], 1), leaf([COLS], 2, 0.5, 1.5)
        return grad_body(rms_norm(x, w), [x, w], 9)

    softmax, log_softmax = (lambda x: F.softmax(x, -1)), (lambda x: F.log_softmax(x, -1))
    return {"softmax_fwd": fwd(softmax), "softmax_bwd": bwd(softmax),
            "log_softmax_fwd": fwd(log_softmax), "log_softmax_bwd": bwd(log_softmax),
            "layer_norm_fwd": ln_fwd, "layer_norm_bwd": ln_bwd,
            "rms_norm_fwd": rms_fwd, "rms_norm_bwd": rms_bwd}


def elementwise_cases():
    def fwd(f):
        return lambda: (lambda x: lambda: [f(x)])(pattern([ELEMS], 1, -6.0, 6.0))

    def bwd(f):
        return lambda: (lambda x: grad_body(f(x), [x], 9))(leaf([ELEMS], 1, -6.0, 6.0))

    def cross_entropy():
        x, t = leaf([ROWS, COLS], 1), pattern_classes(ROWS, COLS, 2)

        def body():
            loss = F.cross_entropy(x, t)
            return [loss.detach(), torch.autograd.grad(loss, [x])[0]]
        return body

    return {"silu_fwd": fwd(F.silu), "silu_bwd": bwd(F.silu), "gelu_fwd": fwd(F.gelu),
            "gelu_bwd": bwd(F.gelu), "x_sigmoid_x": fwd(lambda x: x * torch.sigmoid(x)),
            "cross_entropy_fwdbwd": cross_entropy}


def reduction_cases():
    ops = {"sum": (torch.sum, torch.sum), "mean": (torch.mean, torch.mean),
           "max": (torch.max, torch.amax), "var": (torch.var, torch.var)}
    cases = {}
    for name, (whole, along) in ops.items():
        for where, dim in [("all", None), ("last", 1), ("first", 0)]:
            def setup(whole=whole, along=along, dim=dim):
                x = pattern_rows(RED, RED, 1, -1.0, 3.0)  # a mean away from 0: no cancelling
                return (lambda: [whole(x)]) if dim is None else (lambda: [along(x, dim)])
            cases[f"{name}_{where}"] = setup
    return cases


def attention(q, k, v, causal):
    # PyTorch 1.13 has no scaled_dot_product_attention (2.0 added it): the usual composition.
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.size(-1)))
    return att.masked_fill(~causal, float("-inf")).softmax(-1) @ v


def matmul_cases():
    def qkv(make):
        return [make(list(ATT), s, -1.0, 1.0) for s in (1, 2, 3)]

    causal = torch.ones(ATT[2], ATT[2], dtype=torch.bool).tril()

    def att_fwd():
        q, k, v = qkv(pattern)
        return lambda: [attention(q, k, v, causal)]

    def att_bwd():
        q, k, v = qkv(leaf)
        return grad_body(attention(q, k, v, causal), [q, k, v], 9)

    def mm(n):
        def setup():
            a, b = pattern([n, n], 1, -1.0, 1.0), pattern([n, n], 2, -1.0, 1.0)
            return lambda: [torch.mm(a, b)]
        return setup

    def linear():
        x, w = pattern([1, 4096], 1, -1.0, 1.0), pattern([4096, 4096], 2, -0.05, 0.05)
        b = pattern([4096], 3, -1.0, 1.0)
        return lambda: [F.linear(x, w, b)]

    return {"attention_fwd": att_fwd, "attention_bwd": att_bwd, "sgemm_1024": mm(1024),
            "sgemm_2048": mm(2048), "linear_1x4096": linear}


def tiny_add(record):
    def setup():
        a, b = torch.ones(1), torch.ones(1)
        if record:
            a.requires_grad_()

        def body():
            for _ in range(INNER):
                c = a + b
            return [c]
        return body
    return setup


def make_mlp():
    mlp = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                        nn.Linear(512, 10))
    with torch.no_grad():  # bench_steps.cpp's initialisation, in the same parameter order
        for seed, p in enumerate(mlp.parameters(), start=100):
            p.copy_(pattern(list(p.shape), seed, -0.05, 0.05))
    return mlp


def mlp_setup(check):
    def setup():
        mlp = make_mlp()
        opt = torch.optim.AdamW(mlp.parameters(), lr=1e-3)
        x, y = pattern([256, 784], 7, 0.0, 1.0), pattern_classes(256, 10, 8)

        def step():
            opt.zero_grad()
            loss = F.cross_entropy(mlp(x), y)
            loss.backward()
            opt.step()
            return loss.detach()

        def check_body():
            losses = torch.stack([step(), step(), step()])
            with torch.no_grad():
                return [losses, mlp(x)]
        return check_body if check else lambda: [step()]
    return setup


def all_cases(check):
    cases = {**norm_cases(), **elementwise_cases(), **reduction_cases(), **matmul_cases(),
             "dispatch_add": tiny_add(False), "dispatch_add_grad": tiny_add(True),
             "mlp_step": mlp_setup(check)}
    return cases


INNER_OF = {"dispatch_add": INNER, "dispatch_add_grad": INNER}


def time_body(body, inner, min_time, reps):
    body()  # warm-up: first-touch of buffers, lazy initialisation
    per_op = []
    for _ in range(reps):
        n, start = 0, time.perf_counter()
        while True:
            body()
            n += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_time:
                break
        per_op.append(1000 * elapsed / n / inner)
    return min(per_op), statistics.median(per_op)


def check_record(name, outputs):
    recs = []
    for t in outputs:
        flat = t.detach().reshape(-1).double()
        n = flat.numel()
        k = min(n, 64)
        idx = [j * (n - 1) // (k - 1) if k > 1 else 0 for j in range(k)]
        recs.append({"numel": n, "sum": flat.sum().item(), "sample": flat[idx].tolist()})
    return {"case": name, "outputs": recs}


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--min-time", type=float, default=0.3)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--check", default="", help="write check records to this file and exit")
    p.add_argument("--list", action="store_true", help="print the case names")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    cases = all_cases(bool(a.check))
    names = [c for c in a.cases.split(",") if c] or list(cases)
    unknown = [c for c in names if c not in cases]
    if a.list or unknown:
        print("\n".join(cases))
        raise SystemExit(f"unknown cases: {unknown}" if unknown else 0)
    if a.check:
        with open(a.check, "w") as f:
            for name in names:
                f.write(json.dumps(check_record(name, cases[name]()())) + "\n")
        return
    for name in names:
        best, median = time_body(cases[name](), INNER_OF.get(name, 1), a.min_time, a.reps)
        print(json.dumps({"case": name, "threads": a.threads, "ms": best, "ms_median": median,
                          "reps": a.reps}), flush=True)


if __name__ == "__main__":
    main()
