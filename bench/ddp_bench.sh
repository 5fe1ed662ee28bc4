#!/usr/bin/env bash
# DDP MLP step (issue 15's benchmark table): MLP 784-512-512-10, batch 256 per rank, 2 ranks with
# one thread each, gloo on loopback. Ember (bench/bench_ddp.cpp) and PyTorch from Debian
# (bench/peers/ddp_peer.py), the same variants in the same run:
#   local       the step without any communication
#   ddp         DistributedDataParallel (bucketed all_reduce overlapping backward)
#   sync_after  backward, then a blocking all_reduce per gradient
# Target: ddp's step time <= 1.1x local's (communication hidden behind backward). On a machine
# with fewer cores than ranks x 2 (compute plus communication threads) it cannot be hidden.
#
#   bash bench/ddp_bench.sh [--ranks 2] [--steps 20] [--rounds 3] [--no-build] [--no-peer]
#                           [--out DIR]   (JSON results: DIR/ddp_ember.json, DIR/ddp_pytorch.json)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=1 peer=1 out=bench/results
args=()
while (($#)); do
  case $1 in
    --no-build) build=0 ;;
    --no-peer) peer=0 ;;
    --ranks | --steps | --rounds)
      (($# >= 2)) || { echo "ddp_bench.sh: $1 needs a value" >&2; exit 2; }
      args+=("$1" "$2")
      shift ;;
    --out)
      (($# >= 2)) || { echo "ddp_bench.sh: $1 needs a value" >&2; exit 2; }
      out=$2
      shift ;;
    -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "ddp_bench.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$out"

if ((build)); then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
  cmake --preset default -DEMBER_BUILD_BENCH=ON >/dev/null
  cmake --build --preset default --target bench_ddp
fi
# Each rank is one thread: keep OpenMP and OpenBLAS from spinning up more.
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
timeout 600 build/default/bench/bench_ddp "${args[@]}" --json "$out/ddp_ember.json"

py=/usr/bin/python3  # Debian's Python, where python3-torch lives
if ((peer)); then
  if "$py" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
    echo
    timeout 600 "$py" bench/peers/ddp_peer.py "${args[@]}" --json "$out/ddp_pytorch.json"
  else
    echo "ddp_bench.sh: $py has no torch with gloo (apt install python3-torch): no PyTorch column" >&2
  fi
fi
