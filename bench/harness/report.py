"""Rows, output checks and the printed/Markdown table of scripts/bench.sh."""
import math
import subprocess
from pathlib import Path

PEER_NAMES = {"torch": "PyTorch", "libtorch": "libtorch C++"}


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def git_describe(root):
    try:
        return subprocess.run(["git", "-C", str(root), "describe", "--always", "--dirty"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def compare(e, p, tol, floor):
    """Ember's check record against the peer's: same output count and sizes, the samples and the
    sums within tol (relative to the largest sample, plus floor). Returns (verdict, worst error
    in units of the tolerance)."""
    if not e or not p:
        return "n/a", None
    if len(e["outputs"]) != len(p["outputs"]):
        return f"FAIL ({len(e['outputs'])} outputs vs {len(p['outputs'])})", math.inf
    worst = 0.0
    for i, (eo, po) in enumerate(zip(e["outputs"], p["outputs"])):
        if eo["numel"] != po["numel"] or len(eo["sample"]) != len(po["sample"]):
            return f"FAIL (output {i}: {eo['numel']} vs {po['numel']} elements)", math.inf
        finite = [abs(v) for v in po["sample"] if math.isfinite(v)]
        scale = max(finite, default=0.0) or 1.0
        for a, b in zip(eo["sample"], po["sample"]):
            if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
                if not (a == b or (math.isnan(a) and math.isnan(b))):
                    return f"FAIL (output {i}: {a} vs {b})", math.inf
                continue
            worst = max(worst, abs(a - b) / (tol * (scale + abs(b)) + floor))
        mean_abs = sum(finite) / len(finite) if finite else 0.0
        if math.isfinite(eo["sum"]) and math.isfinite(po["sum"]):
            allowed = tol * eo["numel"] * mean_abs + tol * abs(po["sum"]) + floor
            worst = max(worst, abs(eo["sum"] - po["sum"]) / allowed if allowed else 0.0)
    return ("ok" if worst <= 1 else f"FAIL ({worst:.1f}x tolerance)"), worst


def percent(case, amount, ms, peak, stream, t):
    if not ms or not case.limit or not amount:
        return None
    if case.limit == "bw" and stream.get(t):
        return 100 * amount / (ms / 1e3) / (stream[t] * 1e9)
    if case.limit == "flops" and peak.get(t):
        return 100 * amount / (ms / 1e3) / (peak[t] * 1e9)
    return None


def row(case, t, label, e, p, peer, amount, peak, stream, check, note=""):
    ratio = e / p if e and p else None
    limit = {"bw": "STREAM", "flops": "FP32 peak"}.get(case.limit, "")
    r = {"case": case.name, "label": label, "threads": t, "ember_ms": e, "peer": peer,
         "peer_ms": p, "ratio": ratio, "limit": limit,
         "ember_pct": percent(case, amount, e, peak, stream, t),
         "peer_pct": percent(case, amount, p, peak, stream, t),
         "check": check[0], "check_err": check[1], "note": note, "target": None, "met": None}
    if case.target and t == 2 and "(vs " not in label:  # the targets: 2 threads
        pct = f", >= {case.target_pct:g}%" if case.target_pct else ""
        r["target"] = f"<= {case.target:g}{pct}"
        r["met"] = ratio is not None and ratio <= case.target and (
            not case.target_pct or (r["ember_pct"] or 0) >= case.target_pct)
    return r


def build_rows(selected, threads, times, checks, gpt, peak, stream, gpt_flops, step_ms,
               gpt_check):
    rows = []
    for case in selected:
        for t in threads:
            if case.source in ("ops", "steps"):
                e, e_med = times["ember"].get((case.name, t), (None, None))
                # per-op overhead against libtorch's C++ API first; everything else against Python
                peers = ["libtorch", "torch"] if case.group == "dispatch" else ["torch"]
                if case.group == "mlp":
                    peers.append("libtorch")
                for side in peers:
                    p, p_med = times[side].get((case.name, t), (None, None))
                    chk = compare(checks["ember"].get(case.name), checks[side].get(case.name),
                                  case.tol, case.floor)
                    label = (case.label if side == peers[0]
                             else f"{case.label} (vs {PEER_NAMES[side]})")
                    r = row(case, t, label, e, p, PEER_NAMES[side], case.amount, peak, stream, chk)
                    r["ember_ms_median"], r["peer_ms_median"] = e_med, p_med
                    rows.append(r)
            elif case.source == "gpt":
                e_rec, p_rec = gpt.get(("ember", t, False)), gpt.get(("torch", t, False))
                rows.append(row(case, t, case.label, step_ms(e_rec), step_ms(p_rec), "PyTorch",
                                gpt_flops, peak, stream, gpt_check(e_rec, p_rec),
                                note=stopped_note(e_rec)))
            elif case.source == "contention":
                ms = {(s, c): step_ms(gpt.get((s, t, c))) for s in ("ember", "torch")
                      for c in (False, True)}
                slow = {s: ms[s, True] / ms[s, False] if ms[s, True] and ms[s, False] else None
                        for s in ("ember", "torch")}
                r = row(case, t, case.label + " (ratio of slowdowns)", ms["ember", True],
                        ms["torch", True], "PyTorch", 0, peak, stream, ("n/a", None),
                        note=f"slowdown Ember {fmt(slow['ember'], 'x')}, PyTorch "
                             f"{fmt(slow['torch'], 'x')}"
                             + stopped_note(gpt.get(("ember", t, True)), "; "))
                r["ratio"] = slow["ember"] / slow["torch"] if all(slow.values()) else None
                if r["target"]:
                    r["met"] = r["ratio"] is not None and r["ratio"] <= case.target
                r["ember_slowdown"], r["peer_slowdown"] = slow["ember"], slow["torch"]
                rows.append(r)
    return rows


def stopped_note(rec, sep=""):
    if not rec or not rec.get("stopped"):
        return ""
    return f"{sep}Ember stopped by --gpt-cap after {len(rec['step_ms'])} steps"


def fmt(v, kind):
    if v is None:
        return "n/a"
    if kind == "ms":
        if v < 0.1:
            return f"{v * 1000:.3g} us"
        return f"{v:.0f} ms" if v >= 100 else f"{v:.3g} ms"
    if kind == "x":
        return f"{v:.2f}x"
    if kind == "pct":
        return f"{v:.0f}%"
    return f"{v:.2f}"


HEADER = ["case", "thr", "Ember", "peer", "peer time", "Ember/peer", "Ember % of limit",
          "peer % of limit", "target (2 thr)", "check"]


def cells(r):
    lim = f" {r['limit']}" if r["limit"] else ""
    check = r["check"] + (f"; {r['note']}" if r["note"] else "")
    return [r["label"], str(r["threads"]), fmt(r["ember_ms"], "ms"), r["peer"],
            fmt(r["peer_ms"], "ms"), fmt(r["ratio"], "ratio"),
            fmt(r["ember_pct"], "pct") + lim if r["ember_pct"] is not None else "",
            fmt(r["peer_pct"], "pct") + lim if r["peer_pct"] is not None else "",
            f"{r['target']} {'met' if r['met'] else 'MISSED'}" if r["target"] else "", check]


def render(rows, meta):
    peak = ", ".join(f"{t} thr {v:.0f}" for t, v in sorted(meta["peak_gflops"].items()))
    stream = ", ".join(f"{t} thr {v:.1f}" for t, v in sorted(meta["stream_gbs"].items()))
    head = (f"{meta['cpu']}, {meta['cores']} cores, {meta['date']}, git {meta['git']}; "
            f"FP32 peak GFLOP/s: {peak}; STREAM triad GB/s: {stream}; load average (1 min) "
            f"{meta['load_avg_at_start'][0]:.1f} at the start, {meta['load_avg_at_end'][0]:.1f} "
            f"at the end\n"
            f"Ember/peer below 1: Ember is faster. Times: best of {meta['reps']} rounds "
            f"(GPT: median step). PyTorch {meta['peer_env']}")
    table = [HEADER] + [cells(r) for r in rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(HEADER))]
    text = head + "\n\n" + "\n".join(
        "  ".join(c.ljust(w) if i in (0, 3, 9) else c.rjust(w)
                  for i, (c, w) in enumerate(zip(line, widths))) for line in table)
    aimed = [r for r in rows if r["target"]]
    failed = [r for r in rows if r["check"].startswith("FAIL")]
    tail = (f"issue 16's targets met: {sum(bool(r['met']) for r in aimed)} of {len(aimed)}; "
            f"output checks failed: {len(failed)} of {len(rows)}")
    text += "\n\n" + tail
    md = head.replace("\n", "  \n") + "\n\n" + "\n".join(
        "| " + " | ".join(line) + " |" for line in [table[0], ["---"] * len(HEADER)] + table[1:])
    return text, md + "\n\n" + tail + "\n"
