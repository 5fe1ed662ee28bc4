#!/usr/bin/env bash
# all_reduce float32 SUM (issue 15's benchmark table): 4 KiB, 1 MiB and 64 MiB with 2 and 4 ranks
# on loopback, one thread per rank, for each backend of Ember's process group, side by side with
# in the same run:
#   engine   the engine called directly, without Ember: Gloo's allreduce (libgloo only,
#            bench/peers/gloo_allreduce.cpp) and Open MPI's MPI_Allreduce under mpirun
#            (bench/peers/mpi_allreduce.cpp)
#   pytorch  PyTorch's torch.distributed.all_reduce with gloo (Debian's python3-torch 1.13, which
#            has no MPI; bench/peers/allreduce_peer.py)
# Every program measures alike: per iteration a barrier, then one timed blocking all_reduce; the
# median of each rank, the slowest rank's reported (microseconds). Targets: Ember within 10% of
# the engine; not slower than PyTorch with the same backend. gloo jobs start through `ember run`,
# mpi jobs through mpirun.
#
#   bash bench/allreduce_bench.sh [--ranks 2,4] [--cases 4096:40,1048576:15,67108864:3]
#        [--backends gloo,mpi] [--no-build] [--no-peer] [--build-dir DIR] [--out DIR]
#   --cases BYTES:ITERS,...   sizes (multiples of 4 bytes) and timed iterations of each
#   --out DIR                 also write DIR/allreduce.json (one object per row)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=1 peer=1 out="" bdir=build/default
ranks=2,4 cases=4096:40,1048576:15,67108864:3 backends=gloo,mpi rounds=3
while (($#)); do
  case $1 in
    --no-build) build=0 ;;
    --no-peer) peer=0 ;;
    --ranks | --cases | --backends | --rounds | --build-dir | --out)
      (($# >= 2)) || { echo "allreduce_bench.sh: $1 needs a value" >&2; exit 2; }
      case $1 in
        --ranks) ranks=$2 ;;
        --cases) cases=$2 ;;
        --backends) backends=$2 ;;
        --rounds) rounds=$2 ;;
        --build-dir) bdir=$2 ;;
        --out) out=$2 ;;
      esac
      shift ;;
    -h | --help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "allreduce_bench.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[[ $cases =~ ^[0-9]+:[0-9]+(,[0-9]+:[0-9]+)*$ ]] ||
  { echo "allreduce_bench.sh: --cases must look like 4096:40,1048576:15" >&2; exit 2; }
[[ $ranks =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "allreduce_bench.sh: --ranks must look like 2,4" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "allreduce_bench.sh: --rounds must be a positive integer" >&2; exit 2; }

if ((build)); then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
  cmake --preset default -DEMBER_BUILD_BENCH=ON >/dev/null
  cmake --build --preset default --target bench_allreduce bench_gloo_allreduce bench_mpi_allreduce ember_cli
fi
ember=$bdir/ember bench=$bdir/bench
for f in "$ember" "$bench/bench_allreduce" "$bench/bench_gloo_allreduce" "$bench/bench_mpi_allreduce"; do
  [[ -x $f ]] || { echo "allreduce_bench.sh: $f is missing (build with -DEMBER_BUILD_BENCH=ON)" >&2; exit 2; }
done
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1  # one thread per rank
py=/usr/bin/python3                              # Debian's Python, where python3-torch lives
if ((peer)) && ! "$py" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
  echo "allreduce_bench.sh: $py has no torch with gloo (apt install python3-torch): no PyTorch column" >&2
  peer=0
fi
mpirun=(mpirun --oversubscribe -x OMP_NUM_THREADS -x OPENBLAS_NUM_THREADS)
(($(id -u) == 0)) && mpirun+=(--allow-run-as-root)
limit=300  # seconds for one job, all its cases

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
# run NAME COMMAND...: keeps the job's RESULT lines as "NAME BYTES US" in $tmp/results.
run() {
  local name=$1
  shift
  if ! timeout "$limit" "$@" >"$tmp/log" 2>&1; then
    echo "allreduce_bench.sh: $name failed or ran past ${limit}s:" >&2
    tail -5 "$tmp/log" >&2
    failed=1
  fi
  sed -n 's/^\(\[0\]:\)\{0,1\}RESULT bytes=\([0-9]*\) iters=[0-9]* us=\([0-9.]*\)$/\2 \3/p' "$tmp/log" |
    sed "s/^/$name /" >>"$tmp/results"
}
: >"$tmp/results"
IFS=, read -ra rank_list <<<"$ranks"
IFS=, read -ra backend_list <<<"$backends"
for n in "${rank_list[@]}"; do
  for b in "${backend_list[@]}"; do
    for ((round = 1; round <= rounds; ++round)); do
      echo "running: $b, $n ranks, round $round of $rounds" >&2
      case $b in
        gloo)
          run "ember-gloo-$n" "$ember" run --nproc-per-node "$n" -- "$bench/bench_allreduce" gloo --cases "$cases"
          rm -rf "$tmp/store$n" && mkdir -p "$tmp/store$n"
          GLOO_STORE_DIR=$tmp/store$n run "engine-gloo-$n" \
            "$ember" run --nproc-per-node "$n" -- "$bench/bench_gloo_allreduce" --cases "$cases"
          ((peer)) && run "pytorch-gloo-$n" \
            "$ember" run --nproc-per-node "$n" -- "$py" bench/peers/allreduce_peer.py --cases "$cases"
          ;;
        mpi)
          run "ember-mpi-$n" "${mpirun[@]}" -np "$n" "$bench/bench_allreduce" mpi --cases "$cases"
          run "engine-mpi-$n" "${mpirun[@]}" -np "$n" "$bench/bench_mpi_allreduce" --cases "$cases"
          ;;
        *) echo "allreduce_bench.sh: unknown backend $b (gloo or mpi)" >&2; exit 2 ;;
      esac
    done
  done
done

# The table: one row per backend x ranks x size.
[[ -n $out ]] && mkdir -p "$out"
awk -v rounds="$rounds" -v ranks="$ranks" -v backends="$backends" -v cases="$cases" -v json="${out:+$out/allreduce.json}" '
  { k = $1 " " $2; v[k, ++nv[k]] = $3 }
  # The median over rounds of one column (empty where no round reported it).
  function med(k,   n, i, j, x, a) {
    n = nv[k]
    if (!n) return ""
    for (i = 1; i <= n; ++i) a[i] = v[k, i]
    for (i = 2; i <= n; ++i) for (j = i; j > 1 && a[j - 1] > a[j]; --j) { x = a[j]; a[j] = a[j - 1]; a[j - 1] = x }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  function size(b) { return b >= 1048576 ? (b / 1048576) " MiB" : b >= 1024 ? (b / 1024) " KiB" : b " B" }
  function cell(v) { return v == "" ? "-" : sprintf("%.1f", v) }
  function ratio(a, b) { return (a == "" || b == "" || b == 0) ? "-" : sprintf("%.2f", a / b) }
  END {
    split(ranks, R, ","); split(backends, B, ","); nc = split(cases, C, ",")
    printf "all_reduce float32 SUM, microseconds (median per rank, slowest rank; median of %d rounds); ratios below 1: Ember faster\n", rounds
    printf "%-7s %5s %8s %11s %11s %8s %11s %8s\n", "backend", "ranks", "size", "ember", "engine",
      "/engine", "pytorch", "/pytorch"
    if (json != "") printf "" > json
    for (i = 1; i in R; ++i) for (j = 1; j in B; ++j) for (k = 1; k <= nc; ++k) {
      split(C[k], bc, ":"); bytes = bc[1]
      e = med("ember-" B[j] "-" R[i] " " bytes); g = med("engine-" B[j] "-" R[i] " " bytes)
      p = med("pytorch-" B[j] "-" R[i] " " bytes)
      missing += e == "" || g == ""
      printf "%-7s %5d %8s %11s %11s %8s %11s %8s\n", B[j], R[i], size(bytes), cell(e), cell(g),
        ratio(e, g), cell(p), ratio(e, p)
      if (json != "")
        printf "{\"case\": \"all_reduce\", \"backend\": \"%s\", \"ranks\": %d, \"bytes\": %d, \"ember_us\": %s, \"engine_us\": %s, \"pytorch_us\": %s}\n",
          B[j], R[i], bytes, e == "" ? "null" : e, g == "" ? "null" : g, p == "" ? "null" : p >> json
    }
    exit missing > 0
  }' "$tmp/results" || failed=1
if [[ -n $out ]]; then echo "(written: $out/allreduce.json)"; fi
exit $failed
