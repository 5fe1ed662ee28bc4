#!/usr/bin/env bash
# Generated kernels next to eager Ember and to PyTorch (issue 20): bench_compile's cases (compiled
# and eager Ember) and the same cases in Debian's PyTorch 1.13 (eager; tuned as scripts/bench.sh
# tunes it), one table. Then the cold and warm compile of the `ember train --compile` GPT
# training step: the same short run with an empty code cache and again with the cache it filled.
# Needs a build with benchmarks:
#   cmake --preset default -DEMBER_BUILD_BENCH=ON
#   cmake --build --preset default --target bench_compile ember
#
#   bash bench/compile_side_by_side.sh [THREADS] [REPEAT]     (defaults 2 and 20)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
threads=${1:-2}
repeat=${2:-20}
bin=$root/build/default
export OMP_NUM_THREADS=$threads OMP_WAIT_POLICY=passive
peer=$(GLIBC_TUNABLES=glibc.malloc.mmap_threshold=1073741824:glibc.malloc.trim_threshold=4294967296 \
  ATEN_CPU_CAPABILITY=avx512 /usr/bin/python3 "$root/bench/peers/compile_peer.py" \
  --repeat "$repeat" --threads "$threads")
ours=$("$bin/bench/bench_compile" --repeat="$repeat")
echo "$ours" | head -1
printf '%-42s %10s %10s %10s %12s\n' case "eager ms" "lowered ms" "PyTorch ms" "PyTorch/comp"
echo "$ours" | tail -n +3 | awk -v peer="$peer" '
  BEGIN { n = split(peer, lines, "\n"); for (i = 1; i <= n; ++i) { split(lines[i], f, " "); pt[f[1]] = f[2] } }
  { k = NR - 1; lw = $(NF - 3); eg = $(NF - 4); name = $0; sub(/ +[0-9.]+ +[0-9.]+ +[0-9.]+x +[0-9]+ +[0-9.]+$/, "", name)
    printf "%-42s %10.2f %10.2f %10.2f %11.2fx\n", name, eg, lw, pt[k], pt[k] / lw }'

echo "== ember train --compile (GPT, 20 steps): cold code cache, then warm"
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
for run in cold warm; do
  start=$(date +%s.%N)
  EMBER_CACHE_DIR=$cache "$bin/ember" train --model gpt --steps 20 --sample 0 --compile \
    --eval-every 1000 --out "$cache/run" --overwrite >/dev/null
  end=$(date +%s.%N)
  printf "%s: %.1f s\n" "$run" "$(echo "$end - $start" | bc)"
done
start=$(date +%s.%N)
"$bin/ember" train --model gpt --steps 20 --sample 0 --eval-every 1000 --out "$cache/run" --overwrite >/dev/null
end=$(date +%s.%N)
printf "eager: %.1f s\n" "$(echo "$end - $start" | bc)"
