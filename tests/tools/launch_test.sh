#!/usr/bin/env bash
# `ember run` end to end: the workers' environment, "[RANK]:" prefixes on both streams, a failing
# worker's status and the others stopped, SIGINT forwarded, flags checked before anything starts.
# Every launch is bounded by `timeout`. Usage: launch_test.sh path/to/ember
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
run() { timeout 30 env -u OMP_NUM_THREADS "$ember" run "$@"; }

# expect_error NEEDLE ARGS...: exit status 2, one line on stderr containing NEEDLE.
expect_error() {
  local needle=$1
  shift
  timeout 30 "$ember" run "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [[ $rc == 2 ]] || fail "ember run $* exited $rc, expected 2"
  grep -q -- "$needle" "$tmp/err" || fail "ember run $*: stderr lacks '$needle': $(cat "$tmp/err")"
  [[ $(grep -c . "$tmp/err") == 1 ]] || fail "ember run $*: stderr is not one line: $(cat "$tmp/err")"
}

# The environment of each rank, one line each, prefixed by the rank.
vars='echo $RANK $LOCAL_RANK $WORLD_SIZE $LOCAL_WORLD_SIZE $GROUP_RANK $MASTER_ADDR $MASTER_PORT $OMP_NUM_THREADS'
run --nproc-per-node 3 -- sh -c "$vars" >"$tmp/out" 2>"$tmp/err" || fail "3 workers exited $?"
sort "$tmp/out" >"$tmp/sorted"
port=$(awk '{print $7}' "$tmp/sorted" | head -1)
[[ $port =~ ^[0-9]+$ && $port -gt 0 ]] || fail "MASTER_PORT is not a port: $(cat "$tmp/out")"
printf '[0]:0 0 3 3 0 127.0.0.1 %s 1\n[1]:1 1 3 3 0 127.0.0.1 %s 1\n[2]:2 2 3 3 0 127.0.0.1 %s 1\n' \
  "$port" "$port" "$port" >"$tmp/want"
cmp -s "$tmp/sorted" "$tmp/want" || fail "environment: got $(cat "$tmp/sorted") want $(cat "$tmp/want")"

# Second node of two, given master address and port; OMP_NUM_THREADS set by the caller is kept.
OMP_NUM_THREADS=3 timeout 30 "$ember" run --nnodes 2 --node-rank 1 --master-addr 127.0.0.1 --master-port 23456 \
  --nproc-per-node 2 -- sh -c "$vars" | sort >"$tmp/out"
printf '[2]:2 0 4 2 1 127.0.0.1 23456 3\n[3]:3 1 4 2 1 127.0.0.1 23456 3\n' >"$tmp/want"
cmp -s "$tmp/out" "$tmp/want" || fail "two nodes: got $(cat "$tmp/out")"
run --rdzv-endpoint localhost:4321 -- sh -c "$vars" >"$tmp/out"
[[ $(cat "$tmp/out") == "[0]:0 0 1 1 0 localhost 4321" ]] || fail "rdzv endpoint: $(cat "$tmp/out")"

# stderr stays stderr; several lines and an unterminated last line each get the prefix.
run --nproc-per-node 2 -- sh -c 'printf "a$RANK\nb$RANK"; echo "e$RANK" >&2' >"$tmp/out" 2>"$tmp/err" ||
  fail "output workers exited $?"
[[ $(sort "$tmp/out" | tr '\n' ' ') == "[0]:a0 [0]:b0 [1]:a1 [1]:b1 " ]] || fail "stdout lines: $(cat "$tmp/out")"
[[ $(sort "$tmp/err" | tr '\n' ' ') == "[0]:e0 [1]:e1 " ]] || fail "stderr lines: $(cat "$tmp/err")"
# Arguments reach the program unchanged, flags after -- included.
run -- printf '%s|' --nproc-per-node "two words" >"$tmp/out"
[[ $(cat "$tmp/out") == "[0]:--nproc-per-node|two words|" ]] || fail "arguments: $(cat "$tmp/out")"

# A failing worker: its status is ember's, the others (and their children) are stopped at once.
start=$(date +%s)
run --nproc-per-node 3 -- sh -c 'echo $$ >'"$tmp"'/pid$RANK; if [ $RANK = 1 ]; then sleep 0.3; exit 7; fi; sleep 30' \
  >"$tmp/out" 2>"$tmp/err"
rc=$?
[[ $rc == 7 ]] || fail "a worker's exit 7 became $rc"
(($(date +%s) - start < 10)) || fail "the other workers were not stopped promptly"
grep -q "rank 1 .*exited with status 7" "$tmp/err" || fail "no report of the failing rank: $(cat "$tmp/err")"
for r in 0 2; do
  pid=$(cat "$tmp/pid$r")
  ! kill -0 "$pid" 2>/dev/null || fail "worker $r (pid $pid) still runs"
done
# A worker killed by a signal: 128 + signal, as a shell reports it.
run --nproc-per-node 2 -- sh -c 'if [ $RANK = 0 ]; then kill -9 $$; fi; sleep 30' >/dev/null 2>&1
rc=$?
[[ $rc == 137 ]] || fail "a worker killed by SIGKILL gave $rc, expected 137"
# A worker that ignores SIGTERM is killed after the grace period.
start=$(date +%s)
run --nproc-per-node 2 -- sh -c 'trap "" TERM; if [ $RANK = 0 ]; then exit 3; fi; sleep 30' >/dev/null 2>&1
rc=$?
[[ $rc == 3 ]] || fail "exit 3 with a stubborn peer gave $rc"
(($(date +%s) - start < 15)) || fail "a worker ignoring SIGTERM was not killed after the grace period"

# SIGINT to the launcher reaches every worker; ember run exits 130. (--foreground: timeout must
# not signal the whole process group itself, or the workers would get SIGINT without ember.)
timeout --foreground 30 "$ember" run --nproc-per-node 2 -- sh -c 'trap "echo got INT; exit 5" INT; echo ready; sleep 30 & wait' \
  >"$tmp/out" 2>"$tmp/err" &
launcher=$!
for _ in $(seq 100); do [[ $(grep -c ready "$tmp/out") == 2 ]] && break; sleep 0.1; done
kill -INT $launcher
wait $launcher
rc=$?
[[ $rc == 130 ]] || fail "SIGINT: ember run exited $rc, expected 130"
for r in 0 1; do
  grep -q "^\[$r\]:got INT" "$tmp/out" || fail "SIGINT not forwarded to rank $r: $(cat "$tmp/out" "$tmp/err")"
done

# Flags are checked before anything starts.
expect_error "--nproc-per-node" --nproc-per-node 0 -- touch "$tmp/started"
expect_error "--nproc-per-node" --nproc-per-node abc -- touch "$tmp/started"
expect_error "--node-rank" --nnodes 2 --node-rank 2 --master-addr 127.0.0.1 -- touch "$tmp/started"
expect_error "--master-port" --master-port 70000 -- touch "$tmp/started"
expect_error "not both" --rdzv-endpoint localhost:1 --master-port 2 -- touch "$tmp/started"
expect_error "--rdzv-endpoint" --rdzv-endpoint localhost:x -- touch "$tmp/started"
expect_error "--nnodes 2 needs" --nnodes 2 -- touch "$tmp/started"
expect_error "MIN:MAX" --nnodes 1:2 -- touch "$tmp/started"
expect_error "not found" -- "$tmp/no-such-program"
expect_error "" --nproc-per-node 2
[[ ! -e $tmp/started ]] || fail "a rejected launch started a worker"

finish launch_test
