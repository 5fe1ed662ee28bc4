#!/usr/bin/env bash
# Fused linear + cross-entropy (issue 16 item 6): Ember's fused and unfused forward + backward
# (bench_lce: time and the allocator's peak extra memory, rated against "peak extra memory <=
# 1/10 of the unfused logits") next to PyTorch's unfused one (Debian's python3-torch, same
# thread count; PyTorch 1.13 has no fused op). Needs a build with benchmarks:
#   cmake --preset default -DEMBER_BUILD_BENCH=ON
#   cmake --build --preset default --target bench_lce
#
#   bash bench/lce_side_by_side.sh [THREADS] [N,D,C]     (defaults 2 and 4096,512,32000)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
threads=${1:-2}
shape=${2:-4096,512,32000}
echo "== Ember (OMP_NUM_THREADS=$threads)"
OMP_NUM_THREADS=$threads OMP_WAIT_POLICY=passive "$root/build/default/bench/bench_lce" \
  --shape="$shape" --benchmark_min_time=1
echo "== PyTorch, unfused"
OMP_NUM_THREADS=$threads OMP_WAIT_POLICY=passive /usr/bin/python3 "$root/bench/peers/lce_peer.py" \
  --shape "$shape" --threads "$threads"
