#!/usr/bin/env bash
# `ember train --nproc 2` GPT step against one process with 2 threads (issue 15's benchmark
# table): the default gpt (4 blocks, 128 wide, context 64) on the embedded Austen text, the same
# global batch (--batch-size, default 32) either way, so both runs take the same steps. Reports
# rank 0's mean step time after 5 warm-up steps (`ms_per_step` in metrics.jsonl; the step of
# --nproc 2 includes its gradient all_reduce over gloo on loopback) and tokens per second, with
# one process on one thread for reference. On a loaded machine the 2-thread run suffers most
# (OpenMP's barriers spin while other processes hold the cores).
#
#   bash bench/train_nproc.sh [--steps 60] [--batch-size 32] [--no-build] [--out DIR]
#   (each run's metrics stay in DIR/nproc1, DIR/nproc2 and DIR/thread1; default a temporary
#   folder)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=1 steps=60 batch=32 out=""
while (($#)); do
  case $1 in
    --no-build) build=0 ;;
    --steps | --batch-size | --out)
      (($# >= 2)) || { echo "train_nproc.sh: $1 needs a value" >&2; exit 2; }
      case $1 in --steps) steps=$2 ;; --batch-size) batch=$2 ;; --out) out=$2 ;; esac
      shift ;;
    -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "train_nproc.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [[ -z $out ]]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi

if ((build)); then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
  cmake --preset default >/dev/null
  cmake --build --preset default --target ember_cli
fi
ember=build/default/ember

# field DIR NAME: a number from the final record of DIR/metrics.jsonl.
field() { grep '"final"' "$1/metrics.jsonl" | grep -o "\"$2\":[0-9.e+-]*" | cut -d: -f2; }

common=(--steps "$steps" --batch-size "$batch" --eval-every 1000000 --save-every 1000000
  --sample 0 --overwrite)
env -u OMP_NUM_THREADS timeout 900 "$ember" train "${common[@]}" --threads 2 --out "$out/nproc1" >/dev/null
env -u OMP_NUM_THREADS timeout 900 "$ember" train "${common[@]}" --threads 1 --out "$out/thread1" >/dev/null
env -u OMP_NUM_THREADS timeout 900 "$ember" train "${common[@]}" --nproc 2 --out "$out/nproc2" >/dev/null

ms1=$(field "$out/nproc1" ms_per_step) ms2=$(field "$out/nproc2" ms_per_step)
tok1=$(field "$out/nproc1" items_per_s) tok2=$(field "$out/nproc2" items_per_s)
ms0=$(field "$out/thread1" ms_per_step) tok0=$(field "$out/thread1" items_per_s)
echo "ember train gpt, global batch $batch x 64 tokens, $steps steps ($(nproc) cores)"
printf '%-34s %10s %10s\n' run ms/step tok/s
printf '%-34s %10.1f %10.0f\n' "--nproc 1 --threads 2" "$ms1" "$tok1"
printf '%-34s %10.1f %10.0f\n' "--nproc 2 (1 thread per rank)" "$ms2" "$tok2"
printf '%-34s %10.1f %10.0f\n' "--nproc 1 --threads 1 (reference)" "$ms0" "$tok0"
awk -v a="$ms1" -v b="$ms2" 'BEGIN { printf "step time --nproc 2 / --nproc 1: %.2fx\n", b / a }'
