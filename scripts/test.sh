#!/usr/bin/env bash
# Build and test Ember: the `default` preset (Release, kernels per CPU capability; includes the
# install/find_package/pkg-config package test), then the `asan` preset
# (AddressSanitizer + UndefinedBehaviorSanitizer) and its bounded fuzz run (tests/fuzz); then the
# multi-threaded tests (Threads.*) under ThreadSanitizer (the `tsan` preset builds the library and
# only their binary).
#
#   bash scripts/test.sh
#
# Environment: EMBER_WERROR=OFF to allow warnings (default ON: warnings are errors).
#              EMBER_TEST_PRESETS="default" to run only some presets (default "default asan tsan").
#              EMBER_FUZZ_SECONDS=N for the fuzz run in the asan preset (default 120; 0 skips it).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

jobs=$(nproc)
werror=${EMBER_WERROR:-ON}
read -r -a presets <<<"${EMBER_TEST_PRESETS:-default asan tsan}"
fuzz_seconds=${EMBER_FUZZ_SECONDS:-120}
export CCACHE_BASEDIR="$root"
# Hits across checkouts in other folders also for the -g builds (asan), whose cache key would
# otherwise include the build directory.
export CCACHE_NOHASHDIR=1

results=()
current=""
started=$SECONDS

summary() {
  local rc=$?
  echo
  echo "==================== Ember test summary ===================="
  local line
  for line in "${results[@]}"; do echo "  $line"; done
  if ((rc != 0)); then
    echo "  FAILED  $current"
    echo "result: FAILED (exit $rc) after $((SECONDS - started))s"
  else
    echo "result: all passed in $((SECONDS - started))s"
  fi
  echo "============================================================"
}
trap summary EXIT

# step NAME COMMAND...: run a step, record it in the summary.
step() {
  local name=$1
  shift
  current=$name
  echo
  echo "==> $name"
  local t0=$SECONDS
  "$@"
  results+=("ok      $name ($((SECONDS - t0))s)")
  current=""
}

step "install dependencies" bash scripts/install-deps.sh
for preset in "${presets[@]}"; do
  step "$preset: configure" cmake --preset "$preset" -DEMBER_WERROR="$werror"
  step "$preset: build" cmake --build --preset "$preset" -j "$jobs"
  step "$preset: test" ctest --preset "$preset" -j "$jobs" --output-on-failure
  if [[ $preset == asan ]] && ((fuzz_seconds > 0)); then
    step "asan: fuzz (${fuzz_seconds}s)" bash scripts/fuzz.sh "$fuzz_seconds"
  fi
done
if command -v ccache >/dev/null 2>&1; then
  echo
  echo "ccache (cumulative):"
  ccache --show-stats 2>/dev/null | grep -E '^ *(Hits|Misses):' || true
fi
