"""The side-by-side cases of scripts/bench.sh: names (as in bench_ops.cpp, bench_steps.cpp and
peers/ops_peer.py), groups for --cases, and the limit each one is rated against."""
from dataclasses import dataclass

ROWS, COLS = 4096, 1024  # normalisations and cross_entropy
ELEMS = 16 * 1024 * 1024  # elementwise
RED = 4096  # reductions over [RED, RED]
B, H, T, D = 16, 4, 128, 64  # attention
MLP_MATMUL_PARAMS = 784 * 512 + 512 * 512 + 512 * 10
# `ember train --model gpt` with the shape; the same flags drive bench/peers/gpt_peer.py.
GPT = {"layers": 4, "heads": 4, "dim": 256, "context": 128, "batch-size": 16}
GPT_FLAGS = ["--batch-size", "16", "--context", "128", "--layers", "4", "--heads", "4",
             "--dim", "256", "--lr", "3e-3", "--warmup", "50", "--weight-decay", "0.1",
             "--seed", "1337"]
F32 = 4


@dataclass
class Case:
    name: str
    group: str
    label: str
    source: str  # ops: bench_ops; steps: bench_steps (+ libtorch); gpt, contention: the harness
    limit: str = ""  # "bw" (bytes / STREAM), "flops" (FLOP/s / peak) or "" (none)
    amount: float = 0.0  # bytes moved (the compulsory traffic) or floating-point operations
    tol: float = 1e-3  # relative tolerance of the output check
    floor: float = 0.0  # absolute tolerance added (sums of many terms)
    target: float = 0.0  # issue 16's goal at 2 threads: Ember/peer at most this (0: none)
    target_pct: float = 0.0  # ... and at least this % of the limit (0: none)


# Issue 16's targets (2 threads, against the primary peer).
TARGETS = {"softmax": 0.67, "log_softmax": 0.67, "layer_norm": 0.67, "rms_norm": 0.67,
           "silu": 1.0, "gelu": 1.0, "cross_entropy": 1.0, "sum": 1.0, "mean": 1.0, "max": 1.0,
           "dispatch": 0.5, "mlp": 0.7, "gpt": 0.6, "contention": 1.3}


def _with_targets(cases):
    for c in cases:
        stem = c.name.rsplit("_", 1)[0]
        c.target = TARGETS.get(c.group, TARGETS.get(stem, 0.0))
        if stem in ("silu", "gelu") and c.name.endswith("_fwd"):
            c.target_pct = 85.0  # of STREAM
    return cases


def _norm_cases():
    n = ROWS * COLS * F32
    out = []
    for op in ["softmax", "log_softmax", "layer_norm", "rms_norm"]:
        shape = f"[{ROWS}, {COLS}]"
        out.append(Case(f"{op}_fwd", "norm", f"{op} {shape} forward", "ops", "bw", 2 * n))
        # backward: reads the saved tensor and the incoming gradient, writes the input's gradient
        out.append(Case(f"{op}_bwd", "norm", f"{op} {shape} backward", "ops", "bw", 3 * n))
    return out


def _elementwise_cases():
    n = ELEMS * F32
    return [
        Case("silu_fwd", "act", "silu 16M forward", "ops", "bw", 2 * n),
        Case("silu_bwd", "act", "silu 16M backward", "ops", "bw", 3 * n),
        Case("gelu_fwd", "act", "gelu 16M forward", "ops", "bw", 2 * n),
        Case("gelu_bwd", "act", "gelu 16M backward", "ops", "bw", 3 * n),
        Case("x_sigmoid_x", "act", "x * sigmoid(x) 16M (unfused)", "ops", "bw", 2 * n),
        # a fused kernel reads the logits once and writes their gradient once
        Case("cross_entropy_fwdbwd", "act", f"cross_entropy [{ROWS}, {COLS}] fwd+bwd", "ops",
             "bw", 2 * ROWS * COLS * F32),
    ]


def _reduction_cases():
    out = []
    for op in ["sum", "mean", "max", "var"]:
        for where in ["all", "last", "first"]:
            k = RED * RED if where == "all" else RED  # terms per result
            # float32 sums of k terms of magnitude <= 6 (pattern_rows): 1e-6 of the worst case
            floor = 1e-6 * 6.0 * (k if op == "sum" else 1) if op in ("sum", "mean") else 0.0
            out.append(Case(f"{op}_{where}", "reduce", f"{op} [{RED}, {RED}] over {where} dim"
                            if where != "all" else f"{op} [{RED}, {RED}] over all", "ops", "bw",
                            RED * RED * F32, floor=floor))
    return out


def _matmul_cases():
    causal = B * H * T * T * D  # half of the T x T scores are computed usefully
    return [
        Case("attention_fwd", "attention", f"attention B{B} H{H} T{T} d{D} causal forward", "ops",
             "flops", 2 * 2 * causal),
        Case("attention_bwd", "attention", f"attention B{B} H{H} T{T} d{D} causal backward",
             "ops", "flops", 4 * 2 * causal),
        Case("sgemm_1024", "gemm", "sgemm 1024^3", "ops", "flops", 2 * 1024 ** 3),
        Case("sgemm_2048", "gemm", "sgemm 2048^3", "ops", "flops", 2 * 2048 ** 3),
        Case("linear_1x4096", "gemm", "linear 1x4096 -> 4096", "ops", "bw", 4096 * 4096 * F32),
    ]


def _step_cases():
    return [
        Case("dispatch_add", "dispatch", "1-element add", "steps"),
        Case("dispatch_add_grad", "dispatch", "1-element add recording autograd", "steps"),
        Case("mlp_step", "mlp", "MLP 784-512-512-10 b256 AdamW step", "steps", "flops",
             6 * 256 * MLP_MATMUL_PARAMS, tol=2e-2),
        Case("gpt_step", "gpt", "GPT L4 H4 d256 T128 B16 train step", "gpt", "flops"),
        Case("gpt_contention", "contention", "ember train vs PyTorch, 1 busy process",
             "contention"),
    ]


CASES = _with_targets(_norm_cases() + _elementwise_cases() + _reduction_cases() +
                      _matmul_cases() + _step_cases())
BY_NAME = {c.name: c for c in CASES}
GROUPS = list(dict.fromkeys(c.group for c in CASES))


def gpt_flops(vocab):
    """Model FLOPs of one training step (PaLM's count): 6 per parameter and token for the matrix
    multiplications, plus 12 * layers * context * dim per token for attention."""
    d, L, t, b = GPT["dim"], GPT["layers"], GPT["context"], GPT["batch-size"]
    params = L * 12 * d * d + d * vocab  # the blocks' matrices and the tied output head
    return b * t * (6 * params + 12 * L * t * d)


def select(spec):
    """Cases named by a comma list of case names and groups ("all" or empty: every case)."""
    chosen = []
    for item in [s.strip() for s in spec.split(",") if s.strip()] or ["all"]:
        if item == "all":
            chosen += CASES
        elif item in GROUPS:
            chosen += [c for c in CASES if c.group == item]
        elif item in BY_NAME:
            chosen.append(BY_NAME[item])
        else:
            raise SystemExit(f"bench: unknown case or group '{item}'; groups: "
                             f"{', '.join(GROUPS)}; cases: {', '.join(BY_NAME)}")
    return _unique(chosen)


def _unique(cases):
    seen, out = set(), []
    for c in cases:
        if c.name not in seen:
            seen.add(c.name)
            out.append(c)
    return out
