#!/usr/bin/env bash
# `ember train --model gpt` next to the same training in PyTorch (Debian's python3-torch,
# bench/peers/gpt_peer.py): same model, data, batch order, optimizer and schedule, same threads.
# Prints ms/step, tokens/s, peak memory and final validation loss for each, with ratios.
# Builds nothing: expects build/default/ember (cmake --build --preset default --target ember_cli).
#
#   bash bench/gpt_side_by_side.sh [STEPS=600] [THREADS=2]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
steps=${1:-600}
threads=${2:-2}
ember="$root/build/default/ember"
[[ -x $ember ]] || { echo "gpt_side_by_side: $ember not found; build the ember_cli target" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The hyper-parameters, spelled out for both (the defaults of both programs).
common=(--data "$root/data/austen" --steps "$steps" --batch-size 32 --context 64 --layers 4
        --heads 4 --dim 128 --lr 3e-3 --warmup 50 --weight-decay 0.1 --seed 1337
        --threads "$threads")

echo "ember train: $steps steps on $threads threads..." >&2
OMP_NUM_THREADS=$threads "$ember" train --model gpt "${common[@]}" --eval-every "$steps" \
  --save-every "$steps" --out "$tmp/ember" >"$tmp/ember.log" 2>&1 ||
  { echo "gpt_side_by_side: ember train failed:" >&2; tail -5 "$tmp/ember.log" >&2; exit 1; }
echo "PyTorch peer: $steps steps on $threads threads..." >&2
OMP_NUM_THREADS=$threads /usr/bin/python3 "$root/bench/peers/gpt_peer.py" "${common[@]}" \
  --eval-windows 64 >"$tmp/torch.json"

/usr/bin/python3 - "$tmp/ember/metrics.jsonl" "$tmp/torch.json" "$steps" "$threads" <<'PY'
import json, math, sys

def records(path):
    out = []
    for line in open(path, errors="replace"):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if isinstance(r, dict):
            out.append(r)
    return out

ember = next((r for r in reversed(records(sys.argv[1])) if r.get("final")), {})
torch = (records(sys.argv[2]) or [{}])[-1]
ember.setdefault("tokens_per_s", ember.get("items_per_s"))

def num(r, key):
    v = r.get(key)
    return float(v) if isinstance(v, (int, float)) and math.isfinite(v) else None

def fmt(v, spec):
    return "n/a" if v is None else format(v, spec)

print(f"gpt, {sys.argv[3]} steps, {sys.argv[4]} threads (ratio = ember / torch; below 1: Ember "
      "is faster or smaller)")
print(f"{'':<14}{'ember':>12}{'torch':>12}{'ratio':>10}")
for key, label, spec in [("ms_per_step", "ms/step", ".1f"), ("tokens_per_s", "tokens/s", ".0f"),
                         ("peak_rss_mb", "peak MB", ".1f"), ("val_loss", "val loss", ".4f")]:
    e, t = num(ember, key), num(torch, key)
    if key == "val_loss":  # relative difference instead of a ratio
        ratio = fmt(None if e is None or not t else 100 * (e - t) / t, "+.2f") + "%"
    else:
        ratio = fmt(None if e is None or not t else e / t, ".2f")
    print(f"{label:<14}{fmt(e, spec):>12}{fmt(t, spec):>12}{ratio:>10}")
PY
