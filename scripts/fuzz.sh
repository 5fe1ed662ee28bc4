#!/usr/bin/env bash
# Runs the fuzzer (Note [Fuzzer] in tests/fuzz/test_fuzz.cpp) under the asan build for about
# SECONDS seconds: every op database entry (OpTest.Fuzz) and the graph reader (Fuzz.GraphJson),
# spread over one gtest shard per core.
#
#   bash scripts/fuzz.sh 120          # CI (scripts/test.sh)
#   EMBER_FUZZ_SEED=42 bash scripts/fuzz.sh 1800
#
# A failing case prints "<test> <base seed> <case>"; a process that crashed (or that a sanitizer
# stopped) has its running case written to tests/fuzz/seeds/found-<base seed>.seed, which every
# later run replays first. Commit that file with the fix.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
seconds=${1:?usage: scripts/fuzz.sh SECONDS}
# EMBER_FUZZ_BIN: another build's ember_tests (the default one runs faster, without sanitizers).
bin=${EMBER_FUZZ_BIN:-build/asan/tests/ember_tests}
if [[ -z ${EMBER_FUZZ_BIN:-} && ! -x $bin ]]; then
  export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
  cmake --preset asan >/dev/null
  cmake --build --preset asan -j "$(nproc)" --target ember_tests
fi

jobs=$(nproc)
base=${EMBER_FUZZ_SEED:-$(date +%s)}
filter='*OpTest.Fuzz/*:Fuzz.*'
ntests=$("$bin" --gtest_list_tests --gtest_filter="$filter" | grep -c '^  ')
# Per-test budget: the shards run in parallel; each pays ~2 s to start under the sanitizers.
ms=$(((seconds > 10 ? seconds - 5 : seconds) * 1000 * jobs / ntests))
((ms > 0)) || ms=1
echo "fuzz: $ntests tests, ${ms} ms each, $jobs shards, base seed $base"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export EMBER_FUZZ_SEED=$base EMBER_FUZZ_MS=$ms
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:allocator_may_return_null=1:max_allocation_size_mb=4096"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$root/scripts/lsan.supp:print_suppressions=0"
pids=()
for ((i = 0; i < jobs; i++)); do
  EMBER_FUZZ_STATE="$work/state.$i" GTEST_TOTAL_SHARDS=$jobs GTEST_SHARD_INDEX=$i \
    timeout $((seconds * 2 + 300)) "$bin" --gtest_filter="$filter" >"$work/out.$i" 2>&1 &
  pids+=($!)
done
failed=0
for ((i = 0; i < jobs; i++)); do
  if ! wait "${pids[$i]}"; then
    failed=1
    echo "==== shard $i failed; its output ends:"
    tail -n 60 "$work/out.$i"
    if [[ -s $work/state.$i ]] && ! grep -q '^\[  FAILED  \]' "$work/out.$i"; then
      # No gtest verdict: the process died in its running case. Keep it as a regression seed.
      seeds=tests/fuzz/seeds/found-$base.seed
      cat "$work/state.$i" >>"$seeds"
      echo "==== crashed in case: $(cat "$work/state.$i") (added to $seeds)"
    fi
  fi
done
cat "$work"/out.* | awk '/^\[fuzz\] / {
    for (i = 3; i <= NF; i++) { split($i, kv, "="); t[kv[1]] += kv[2] }
  } END { printf "fuzz totals: calls=%d ok=%d errors=%d (typed ember::Error) harness=%d (an entry refused its mutated arguments)\n", t["calls"], t["ok"], t["errors"], t["harness"] }'
grep -h -A3 'threw a non-Ember exception' "$work"/out.* || true
((failed)) || echo "fuzz: no failures (base seed $base)"
exit $failed
