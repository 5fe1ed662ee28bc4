#!/usr/bin/env bash
# ember::linalg next to torch.linalg (Debian's python3-torch) at the same thread count:
# prints milliseconds for each and the ratio torch/ember (above 1: Ember is faster).
# Needs a build with benchmarks: cmake --preset default -DEMBER_BUILD_BENCH=ON &&
# cmake --build --preset default --target bench_linalg
#
#   bash bench/linalg_side_by_side.sh [THREADS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
threads=${1:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
OMP_NUM_THREADS=$threads "$root/build/default/bench/bench_linalg" --benchmark_format=json \
  --benchmark_filter='/0/' --benchmark_min_time=0.5 >"$tmp/ember.json" 2>/dev/null
/usr/bin/python3 "$root/bench/peers/linalg_peer.py" --threads "$threads" >"$tmp/torch.jsonl"
/usr/bin/python3 - "$tmp/ember.json" "$tmp/torch.jsonl" "$threads" <<'PY'
import json, sys
ember = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    parts = b["name"].split("/")          # BM_Svd/4096/8/0/real_time
    ember["/".join(parts[:3])] = b["real_time"]  # kMillisecond
torch = {r["name"]: r["ms"] for r in map(json.loads, open(sys.argv[2]))}
print(f"threads: {sys.argv[3]}   (ratio = torch time / ember time; above 1 means Ember is faster)")
print(f"{'case':<22}{'ember ms':>12}{'torch ms':>12}{'ratio':>9}")
for name, t in torch.items():
    e = ember.get(name)
    if e is None:
        continue
    print(f"{name:<22}{e:>12.3f}{t:>12.3f}{t / e:>9.2f}")
PY
