#!/usr/bin/python3
"""Runs the side-by-side benchmark (scripts/bench.sh builds the programs, then calls this):
the machine's FP32 peak and STREAM triad first, then every selected case for Ember and its peer
at each thread count, an output check per case, one table printed and written as JSON (and as
Markdown next to it). Ember runs in the environment it is given; the peers (PyTorch from Python,
libtorch C++) in the tuned one of issue 16 (tuned_env)."""
import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cases as C  # noqa: E402
import report  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PY = "/usr/bin/python3"  # Debian's Python with python3-torch, not whatever python3 is on PATH
TIMEOUT = 900  # seconds for any one program run


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def has_avx512():
    try:
        return "avx512f" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


EMBER_EXTRA_ENV = {}  # --ember-env KEY=VALUE: to compare Ember under other settings


def ember_env(threads):
    return {**os.environ, **EMBER_EXTRA_ENV, "OMP_NUM_THREADS": str(threads)}


def tuned_env(threads):
    """PyTorch as a careful user runs it: large allocations kept (no mmap/munmap per op), passive
    OpenMP waiting, the AVX-512 kernels; OpenBLAS tuning variables not inherited."""
    unset = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
    env = {k: v for k, v in os.environ.items() if k not in unset}
    env.update({"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=1073741824:"
                                  "glibc.malloc.trim_threshold=4294967296",
                "OMP_WAIT_POLICY": "passive",
                "ATEN_CPU_CAPABILITY": "avx512" if has_avx512() else "avx2",
                "OMP_NUM_THREADS": str(threads)})
    return env


def run(cmd, env, what, timeout=TIMEOUT):
    """Runs cmd; returns its stdout, or None (with the error logged) when it fails."""
    try:
        p = subprocess.run([str(c) for c in cmd], env=env, capture_output=True, text=True,
                           errors="replace", timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        log(f"bench: {what} failed: {e}")
        return None
    if p.returncode != 0:
        log(f"bench: {what} exited with {p.returncode}:\n{p.stderr[-2000:]}")
        return None
    return p.stdout


def json_lines(text):
    out = []
    for line in (text or "").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


def read_checks(path):
    try:
        return {r["case"]: r for r in json_lines(Path(path).read_text())}
    except OSError:
        return {}


# ---------------------------------------------------------------- the machine's limits

def machine_limits(bindir, threads, quick):
    peak, stream = {}, {}
    for r in json_lines(run([bindir / "bench_peak_flops", *threads], ember_env(1), "FP32 peak")):
        peak[r["threads"]] = r["gflops"]
    args = ["--mib", "128" if quick else "256", "--runs", "4" if quick else "10"]
    for r in json_lines(run([bindir / "bench_stream_triad", *args, *threads], ember_env(1),
                            "STREAM triad")):
        stream[r["threads"]] = r["gbs"]
    return peak, stream


# ---------------------------------------------------------------- Google Benchmark programs

def gbench(binary, names, env, a, what):
    """{case: [ms per operation]}, one per repetition, from a Google Benchmark program."""
    if not names or not Path(binary).exists():
        return {}
    out = run([binary, f"--benchmark_filter=^({'|'.join(names)})(/|$)",
               "--benchmark_format=json", f"--benchmark_min_time={a.min_time}",
               "--benchmark_repetitions=1"], env, what)
    if out is None:
        return {}
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
    times = {}
    for b in json.loads(out).get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration":
            continue
        name = b.get("run_name", b["name"]).split("/")[0]
        ms = b["real_time"] * scale[b.get("time_unit", "ns")] / b.get("inner", 1.0)
        times.setdefault(name, []).append(ms)
    return times


def add(into, threads, found):
    for case, ms in found.items():
        into.setdefault((case, threads), []).extend(ms)


def gbench_check(binary, names, env, path, what):
    if names and Path(binary).exists():
        run([binary, f"--check={path}", ",".join(names)], env, what)
    return read_checks(path)


def peer_ops(names, threads, a, what):
    if not names:
        return {}
    out = run([PY, ROOT / "bench/peers/ops_peer.py", "--cases", ",".join(names), "--threads",
               threads, "--min-time", a.min_time, "--reps", 1], tuned_env(threads), what)
    return {r["case"]: [r["ms"]] for r in json_lines(out)}


def peer_ops_check(names, threads, path):
    if names:
        run([PY, ROOT / "bench/peers/ops_peer.py", "--cases", ",".join(names), "--threads",
             threads, "--check", path], tuned_env(threads), "PyTorch checks")
    return read_checks(path)


# ---------------------------------------------------------------- training steps

class Spinner:
    """A competing busy process (one shell spinning) for the duration of a `with` block."""

    def __enter__(self):
        self.p = subprocess.Popen(["/bin/sh", "-c", "while :; do :; done"])
        time.sleep(0.2)
        return self

    def __exit__(self, *exc):
        self.p.kill()  # our own child, by its pid
        self.p.wait()


def gpt_ember(bindir, threads, steps, tmp, cap):
    """`ember train`'s per-step times and losses (metrics.jsonl). A run past `cap` seconds is
    stopped and its steps so far count (a machine too busy for Ember's spinning threads would
    otherwise take many minutes)."""
    out = Path(tempfile.mkdtemp(dir=tmp))
    cmd = [bindir / "ember", "train", "--model", "gpt", "--data", ROOT / "data/austen",
           "--steps", steps, *C.GPT_FLAGS, "--threads", threads, "--eval-every", steps,
           "--save-every", steps, "--out", out]
    finished = run(cmd, ember_env(threads), f"ember train ({threads} threads)", cap) is not None
    metrics = out / "metrics.jsonl"
    recs = [r for r in json_lines(metrics.read_text()) if "ms" in r] if metrics.exists() else []
    if not recs:
        return None
    return {"step_ms": [r["ms"] for r in recs], "losses": [r["loss"] for r in recs],
            "stopped": not finished}


def gpt_peer(threads, steps, cap):
    """The same training in PyTorch; it reports at the end, so a run past 3 * cap seconds is
    stopped and lost (n/a)."""
    out = run([PY, ROOT / "bench/peers/gpt_peer.py", "--data", ROOT / "data/austen", "--steps",
               steps, *C.GPT_FLAGS, "--threads", threads, "--eval-windows", "64"],
              tuned_env(threads), f"PyTorch GPT peer ({threads} threads)", 3 * cap)
    recs = json_lines(out)
    return recs[-1] if recs else None


def step_ms(r):
    """Median step time after the first 5 (warm-up) steps, as `ember train` skips them."""
    if not r or not r.get("step_ms"):
        return None
    timed = r["step_ms"][5:] or r["step_ms"]
    return statistics.median(timed)


def gpt_check(e, p):
    """Same data, batch order and model; initial weights differ (each side's own generator), so
    the losses agree loosely: the first within 2%, the mean of the last five within 5% (over the
    steps both ran)."""
    if not e or not p or not e["losses"] or not p.get("losses"):
        return "n/a", None
    first = abs(e["losses"][0] - p["losses"][0]) / p["losses"][0] / 0.02
    n = min(len(e["losses"]), len(p["losses"]))
    tail_e, tail_p = (statistics.mean(x["losses"][max(0, n - 5):n]) for x in (e, p))
    last = abs(tail_e - tail_p) / tail_p / 0.05
    worst = max(first, last)
    return ("ok" if worst <= 1 else f"FAIL (losses {e['losses'][0]:.3f}/{tail_e:.3f} vs "
            f"{p['losses'][0]:.3f}/{tail_p:.3f})"), worst


def vocab_size():
    text = b"".join(f.read_bytes() for f in sorted((ROOT / "data/austen").glob("*.txt")))
    return len(set(text))


# ---------------------------------------------------------------- main

def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--bindir", default=str(ROOT / "build/default"))
    p.add_argument("--libtorch-bin", default="")
    p.add_argument("--cases", default="all")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--min-time", type=float, default=0.3)
    p.add_argument("--gpt-steps", type=int, default=30)
    p.add_argument("--gpt-cap", type=float, default=150.0,
                   help="seconds after which an `ember train` run is stopped (its steps count)")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", default=str(ROOT / "bench/results/latest.json"))
    p.add_argument("--ember-env", action="append", default=[], metavar="KEY=VALUE",
                   help="extra environment for Ember's programs (repeatable)")
    p.add_argument("--print-targets", action="store_true")
    a = p.parse_args()
    for kv in a.ember_env:
        key, sep, value = kv.partition("=")
        if not sep or not key:
            raise SystemExit(f"bench: --ember-env expects KEY=VALUE, got '{kv}'")
        EMBER_EXTRA_ENV[key] = value
    if a.quick:
        a.reps, a.min_time, a.gpt_steps = 1, 0.1, min(a.gpt_steps, 10)
        a.gpt_cap = min(a.gpt_cap, 40.0)
    a.threads = [int(t) for t in a.threads.split(",") if t]
    a.bindir = Path(a.bindir)
    return a


def build_targets(sources):
    targets = ["bench_peak_flops", "bench_stream_triad"]
    targets += ["bench_ops"] if "ops" in sources else []
    targets += ["bench_steps"] if "steps" in sources else []
    targets += ["ember_cli"] if sources & {"gpt", "contention"} else []
    return targets


def time_cases(a, names, t, times):
    """Repetitions in rounds, each side once per round: load that drifts on a shared machine
    then hits both sides alike."""
    for rnd in range(1, a.reps + 1):
        log(f"bench: {t} thread(s), round {rnd} of {a.reps}: Ember, PyTorch, libtorch...")
        for s, binary in (("ops", "bench_ops"), ("steps", "bench_steps")):
            add(times["ember"], t, gbench(a.bindir / "bench" / binary, names[s], ember_env(t), a,
                                          f"{binary} ({t} threads)"))
        add(times["torch"], t, peer_ops(names["ops"] + names["steps"], t, a, "ops_peer.py"))
        add(times["libtorch"], t, gbench(a.libtorch_bin, names["steps"], tuned_env(t), a,
                                         "libtorch bench_steps"))


def train_gpt(a, t, sources, gpt, tmp):
    if sources & {"gpt", "contention"}:
        log(f"bench: {t} thread(s): GPT training, {a.gpt_steps} steps each...")
        gpt["ember", t, False] = gpt_ember(a.bindir, t, a.gpt_steps, tmp, a.gpt_cap)
        gpt["torch", t, False] = gpt_peer(t, a.gpt_steps, a.gpt_cap)
    if "contention" in sources:
        log(f"bench: {t} thread(s): GPT training next to a busy process...")
        with Spinner():
            gpt["ember", t, True] = gpt_ember(a.bindir, t, a.gpt_steps, tmp, a.gpt_cap)
        with Spinner():
            gpt["torch", t, True] = gpt_peer(t, a.gpt_steps, a.gpt_cap)


def output_checks(a, names, tmp):
    """Every case once per side (at the largest thread count): their check records."""
    log("bench: output checks...")
    top, tmp = max(a.threads), Path(tmp)
    bench = a.bindir / "bench"
    return {
        "ember": {**gbench_check(bench / "bench_ops", names["ops"], ember_env(top),
                                 tmp / "e_ops.jsonl", "bench_ops --check"),
                  **gbench_check(bench / "bench_steps", names["steps"], ember_env(top),
                                 tmp / "e_steps.jsonl", "bench_steps --check")},
        "torch": peer_ops_check(names["ops"] + names["steps"], top, tmp / "t.jsonl"),
        "libtorch": gbench_check(a.libtorch_bin, names["steps"], tuned_env(top),
                                 tmp / "lt.jsonl", "libtorch bench_steps --check"),
    }


def main():
    a = parse_args()
    selected = C.select(a.cases)
    sources = {c.source for c in selected}
    if a.print_targets:
        print(" ".join(build_targets(sources)))
        return 0
    start, load_start = time.time(), os.getloadavg()
    log(f"bench: FP32 peak and STREAM triad at {a.threads} threads...")
    peak, stream = machine_limits(a.bindir / "bench", a.threads, a.quick)
    names = {s: [c.name for c in selected if c.source == s] for s in ("ops", "steps")}
    times = {"ember": {}, "torch": {}, "libtorch": {}}  # side -> {(case, threads): [ms, ...]}
    gpt = {}  # (side, threads, contended) -> record
    with tempfile.TemporaryDirectory(prefix="ember-bench-") as tmp:
        for t in a.threads:
            time_cases(a, names, t, times)
            train_gpt(a, t, sources, gpt, tmp)
        checks = output_checks(a, names, tmp)

    times = {side: {k: (min(v), statistics.median(v)) for k, v in d.items()}
             for side, d in times.items()}  # best and median of the rounds
    rows = report.build_rows(selected, a.threads, times, checks, gpt, peak, stream,
                             C.gpt_flops(vocab_size()), step_ms, gpt_check)
    meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(start)),
            "cpu": report.cpu_model(), "cores": os.cpu_count(),
            "python": platform.python_version(), "git": report.git_describe(ROOT),
            "peak_gflops": peak, "stream_gbs": stream, "threads": a.threads, "reps": a.reps,
            "min_time_s": a.min_time, "gpt_steps": a.gpt_steps, "gpt_cap_s": a.gpt_cap,
            "quick": a.quick,
            "ember_env": EMBER_EXTRA_ENV, "load_avg_at_start": load_start,
            "load_avg_at_end": os.getloadavg(), "seconds": round(time.time() - start, 1),
            "peer_env": {k: tuned_env(1)[k] for k in ("GLIBC_TUNABLES", "OMP_WAIT_POLICY",
                                                       "ATEN_CPU_CAPABILITY")}}
    text, markdown = report.render(rows, meta)
    print(text)
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    out.with_suffix(".md").write_text(markdown)
    log(f"bench: wrote {out} and {out.with_suffix('.md')} ({meta['seconds']} s)")
    return 1 if any(r["check"].startswith("FAIL") for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
