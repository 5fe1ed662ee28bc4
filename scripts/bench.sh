#!/usr/bin/env bash
# Ember next to tuned PyTorch, in one run (issue 16): builds the Release preset with the
# benchmarks, measures the machine's FP32 peak and STREAM triad bandwidth, runs every case for
# Ember and its peer (PyTorch 1.13 from Debian's python3-torch, /usr/bin/python3; libtorch's C++
# API for the per-op overhead) at each thread count, checks that both computed the same outputs,
# and prints one table (also written as JSON and Markdown).
#
#   bash scripts/bench.sh [--cases LIST] [--threads 1,2] [--reps N] [--min-time S]
#                         [--gpt-steps N] [--gpt-cap S] [--out FILE] [--ember-env KEY=VALUE]
#                         [--quick] [--no-build]
#
#   --cases    comma list of case names or groups (default all): norm, act, reduce, attention,
#              gemm, dispatch, mlp, gpt, contention; e.g. --cases dispatch,mlp,gpt --quick
#   --threads  thread counts (default 1,2)   --reps  rounds, each side once per round (default 3)
#   --min-time seconds per repetition (default 0.3)  --gpt-steps  training steps (default 30)
#   --gpt-cap  seconds after which an `ember train` run is stopped, its steps so far counting
#              (default 150; a busy machine slows Ember's spinning threads down badly)
#   --out      JSON result (default bench/results/latest.json; the table also goes to .md)
#   --ember-env  extra environment for Ember's programs only, e.g. OMP_WAIT_POLICY=passive
#   --quick    one short repetition per case, 10 GPT steps: a smoke run (under ~3 minutes)
#   --no-build use the programs already built in build/default
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=1
args=()
while (($#)); do
  case $1 in
    --no-build) build=0 ;;
    --quick) args+=("$1") ;;
    --cases | --threads | --reps | --min-time | --gpt-steps | --gpt-cap | --out | --ember-env)
      (($# >= 2)) || { echo "bench.sh: $1 needs a value" >&2; exit 2; }
      args+=("$1" "$2")
      shift ;;
    -h | --help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

# The peers come from Debian's archive: installed here when missing (as root or through sudo).
missing=()
for pkg in python3-torch libtorch-dev; do
  [[ $(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true) == installed ]] ||
    missing+=("$pkg")
done
if ((${#missing[@]})); then
  sudo=()
  ((EUID == 0)) || sudo=(sudo)
  echo "bench.sh: installing ${missing[*]}" >&2
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >&2 || echo "bench.sh: could not install ${missing[*]}" >&2
fi
py=/usr/bin/python3  # Debian's Python, where python3-torch lives (not a pyenv python3 on PATH)
"$py" -c 'import torch' 2>/dev/null ||
  { echo "bench.sh: $py cannot import torch: apt install python3-torch" >&2; exit 2; }
targets=$("$py" bench/harness/run.py --print-targets "${args[@]}")

if ((build)); then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
  cmake --preset default -DEMBER_BUILD_BENCH=ON >/dev/null
  # shellcheck disable=SC2086 # a list of targets
  cmake --build --preset default --target $targets
fi

# The per-op overhead cases (bench_steps.cpp) built against libtorch itself: same source.
libtorch_bin=""
if [[ $targets == *bench_steps* ]]; then
  libtorch_bin=build/default/bench/bench_steps_libtorch
  if [[ -f /usr/include/torch/csrc/api/include/torch/torch.h ]]; then
    if ((build)) && [[ ! -x $libtorch_bin || bench/bench_steps.cpp -nt $libtorch_bin ||
      bench/bench_common.h -nt $libtorch_bin ]]; then
      echo "bench.sh: compiling bench_steps.cpp against libtorch..." >&2
      $(command -v ccache || true) g++ -std=c++17 -O2 -DEMBER_BENCH_LIBTORCH \
        -I/usr/include/torch/csrc/api/include bench/bench_steps.cpp -o "$libtorch_bin" \
        -ltorch -ltorch_cpu -lc10 -lbenchmark -lpthread
    fi
  else
    echo "bench.sh: libtorch-dev is not installed: no libtorch C++ column" >&2
    libtorch_bin=""
  fi
fi

exec "$py" bench/harness/run.py --libtorch-bin "$libtorch_bin" "${args[@]}"
