#!/usr/bin/env bash
# Data-parallel `ember train` end to end (Note [Data-parallel ember train] in tools/cli/train.cpp):
# `--nproc 2` against one process on the same global batch (gpt, mlp, cnn), exact resumption of
# each one's checkpoint, `ember run ... -- ember train --distributed` and Open MPI's mpirun,
# output from rank 0 alone, an agreed stop on Ctrl-C, a dying rank stopping the job, and bad
# flags rejected before anything starts or is written. Tiny models on loopback; every launch is
# bounded by `timeout`.
# Usage: train_nproc_test.sh path/to/ember
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
cd "$tmp" || exit 1
# Not a rank of some outer job: the one-process runs and the error checks depend on it.
unset RANK LOCAL_RANK WORLD_SIZE MASTER_ADDR MASTER_PORT OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE
train() { timeout -k 5 60 "$ember" train "$@"; }

# losses DIR: the training losses in DIR/metrics.jsonl, one per line.
losses() { grep -o '"loss":[^,}]*' "$1/metrics.jsonl" | cut -d: -f2; }
# agree WHAT DIR1 DIR2 [TOL]: the same number of losses, each pair within TOL (1e-4) relative.
agree() {
  local n1 n2
  n1=$(losses "$2" | wc -l) n2=$(losses "$3" | wc -l)
  [[ $n1 -gt 0 && $n1 == "$n2" ]] || { fail "$1: $n1 and $n2 losses"; return; }
  paste <(losses "$2") <(losses "$3") | awk -v what="$1" -v tol="${4:-1e-4}" '
    { d = $1 - $2; if (d < 0) d = -d; m = $1 < 0 ? -$1 : $1
      if (d > tol * m) { printf "FAIL: %s: step %d loss %s vs %s\n", what, NR, $1, $2; bad = 1 } }
    END { exit bad }' || failures=$((failures + 1))
}
# same WHAT DIR1 DIR2: identical checkpoints and losses (an exact resumption).
same() {
  cmp -s "$2/checkpoint.safetensors" "$3/checkpoint.safetensors" || fail "$1: checkpoints differ"
  cmp -s <(losses "$2") <(losses "$3") || fail "$1: losses differ"
}
# step_of DIR: the step its checkpoint holds (from the safetensors metadata).
step_of() { grep -a -o '"step":"[0-9]*"' "$1/checkpoint.safetensors" | head -1 | tr -dc 0-9; }
# wait_for_steps DIR N: until DIR/metrics.jsonl has N records (at most 20 s).
wait_for_steps() {
  for _ in $(seq 200); do
    [[ $(grep -c '"loss"' "$1/metrics.jsonl" 2>/dev/null) -ge $2 ]] && return 0
    sleep 0.1
  done
  return 1
}

# A repetitive text the tiny gpt learns quickly. --warmup past --steps keeps the learning rate
# independent of --steps, so a run of 10 steps resumed to 20 must equal a run of 20.
yes "It is a truth universally acknowledged, that a single man in possession of a good fortune." |
  head -c 8000 >text.txt
gpt=(--data text.txt --context 16 --layers 1 --heads 2 --dim 16 --batch-size 8 --eval-every 5
  --warmup 100 --lr 0.05 --sample 0)

train "${gpt[@]}" --steps 20 --out u1 >u1.log 2>&1 || fail "gpt --nproc 1 exited $?: $(tail -2 u1.log)"
train "${gpt[@]}" --steps 20 --out u2 --nproc 2 >u2.log 2>u2.err || fail "gpt --nproc 2 exited $?: $(tail -2 u2.err)"
agree "gpt --nproc 2 vs 1" u1 u2
# Rank 0 alone prints (the launcher prefixes each line with its rank).
grep -q '^\[0\]:done: 20 steps' u2.log || fail "--nproc 2 printed no summary: $(cat u2.log)"
! grep -qv '^\[0\]:' u2.log u2.err || fail "a rank other than 0 printed: $(cat u2.log u2.err)"

# Each checkpoint resumes exactly: 10 steps, then --resume to 20, equals 20 steps at once; the
# 2-rank checkpoint also resumes in one process (a checkpoint does not depend on the rank count).
for n in 1 2; do
  train "${gpt[@]}" --steps 10 --out p$n --nproc=$n >/dev/null 2>&1 || fail "10 steps --nproc $n exited $?"
  [[ $(step_of p$n) == 10 ]] || fail "--nproc $n checkpoint at step $(step_of p$n), not 10"
  cp -r p$n q$n
  train --steps 20 --out p$n --resume --nproc $n --sample 0 >p$n.log 2>&1 ||
    fail "--resume --nproc $n exited $?: $(tail -2 p$n.log)"
  same "--nproc $n resumed" u$n p$n
done
train --steps 20 --out q2 --resume --sample 0 >/dev/null 2>&1 || fail "2-rank checkpoint resumed by 1 exited $?"
agree "2-rank checkpoint resumed by one process" u1 q2

# The launcher by hand: the same run as --nproc 2.
timeout -k 5 60 "$ember" run --nproc-per-node 2 -- "$ember" train "${gpt[@]}" --steps 20 --out r2 \
  --distributed >r2.log 2>&1 || fail "ember run -- ember train --distributed exited $?: $(tail -2 r2.log)"
same "ember run --nproc-per-node 2 -- ember train --distributed" u2 r2
# Open MPI's launcher: ranks from OMPI_COMM_WORLD_*, gloo's store on a free loopback port.
port=$((20000 + RANDOM % 12000))  # below the ephemeral range (32768-)
while (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
timeout -k 5 60 mpirun --allow-run-as-root --oversubscribe -np 2 -x MASTER_ADDR=127.0.0.1 \
  -x MASTER_PORT="$port" "$ember" train "${gpt[@]}" --steps 20 --out o2 --distributed >o2.log 2>&1 ||
  fail "mpirun -np 2 ember train --distributed exited $?: $(tail -2 o2.log)"
same "mpirun -np 2 ember train --distributed" u2 o2

# mlp on a small folder of IDX files (64 random images, labels i % 10).
idx() {  # idx FILE MAGIC_TYPE_DIMS... then the payload on stdin
  local file=$1
  shift
  { printf "$@"; cat; } >"$file"
}
mkdir images
for split in train t10k; do
  head -c $((64 * 28 * 28)) /dev/urandom |
    idx images/$split-images-idx3-ubyte '\x00\x00\x08\x03\x00\x00\x00\x40\x00\x00\x00\x1c\x00\x00\x00\x1c'
  for i in $(seq 0 63); do printf "\\x0$((i % 10))"; done |
    idx images/$split-labels-idx1-ubyte '\x00\x00\x08\x01\x00\x00\x00\x40'
done
mlp=(--model mlp --data images --batch-size 16 --steps 6 --eval-every 100 --warmup 100)
train "${mlp[@]}" --out m1 >m1.log 2>&1 || fail "mlp --nproc 1 exited $?: $(tail -2 m1.log)"
train "${mlp[@]}" --out m2 --nproc 2 >m2.log 2>&1 || fail "mlp --nproc 2 exited $?: $(tail -2 m2.log)"
agree "mlp --nproc 2 vs 1" m1 m2
grep -q '^\[0\]:accuracy' m2.log || fail "mlp --nproc 2 printed no evaluation: $(tail -3 m2.log)"
# Mixed precision averages the bfloat16 copy's gradients (bfloat16 sums: a looser tolerance).
train "${mlp[@]}" --dtype bfloat16 --out mb1 >/dev/null 2>&1 || fail "mlp bfloat16 --nproc 1 exited $?"
train "${mlp[@]}" --dtype bfloat16 --out mb2 --nproc 2 >/dev/null 2>&1 || fail "mlp bfloat16 --nproc 2 exited $?"
agree "mlp bfloat16 --nproc 2 vs 1" mb1 mb2 1e-3
# cnn: BatchNorm normalises each rank's shard on its own, so the losses only stay close.
train "${mlp[@]}" --model cnn --steps 3 --out c1 >/dev/null 2>&1 || fail "cnn --nproc 1 exited $?"
train "${mlp[@]}" --model cnn --steps 3 --out c2 --nproc 2 >/dev/null 2>&1 || fail "cnn --nproc 2 exited $?"
agree "cnn --nproc 2 vs 1" c1 c2 0.05

# Ctrl-C: every rank stops at the same step; rank 0 saves it; the run resumes from there.
long=("${gpt[@]}" --steps 100000 --warmup 1000000 --save-every 100000)
timeout --foreground -k 5 60 "$ember" train "${long[@]}" --out s2 --nproc 2 >s2.log 2>&1 &
job=$!
wait_for_steps s2 5 || fail "the interrupted run made no progress"
kill -INT $job
wait $job
rc=$?
[[ $rc == 130 ]] || fail "Ctrl-C: ember train --nproc 2 exited $rc, expected 130: $(tail -3 s2.log)"
last=$(grep -o '"step":[0-9]*' s2/metrics.jsonl | tail -1 | cut -d: -f2)
[[ -n $last && $(step_of s2) == "$last" ]] || fail "Ctrl-C: checkpoint at step $(step_of s2), last step $last"
grep -q '^\[0\]:stopped at step' s2.log || fail "Ctrl-C: no stop message from rank 0: $(tail -3 s2.log)"
! grep -q "error" s2.log || fail "Ctrl-C: a rank failed: $(grep error s2.log)"
train --out s2 --resume --steps $((last + 2)) --nproc 2 --sample 0 >/dev/null 2>&1 || fail "resume after Ctrl-C exited $?"
[[ $(grep -c '"loss"' s2/metrics.jsonl) == $((last + 2)) ]] || fail "resume after Ctrl-C: metrics lost or doubled"

# A rank that dies stops the job: the launcher ends the others, the last checkpoint is intact.
timeout -k 5 60 "$ember" run --nproc-per-node 2 -- sh -c 'echo $$ >pid$RANK; exec "$0" "$@"' "$ember" \
  train "${long[@]}" --save-every 2 --out k2 --distributed >k2.log 2>&1 &
job=$!
wait_for_steps k2 4 || fail "the run to be killed made no progress"
kill -9 "$(cat pid1)"
wait $job
rc=$?
[[ $rc == 137 ]] || fail "a rank killed by SIGKILL: ember run exited $rc, expected 137"
! kill -0 "$(cat pid0)" 2>/dev/null || fail "rank 0 (pid $(cat pid0)) still runs"
[[ $(step_of k2) -ge 2 ]] || fail "the killed run's checkpoint is missing or unreadable"
"$ember" eval --checkpoint k2 >/dev/null 2>&1 || fail "the killed run's checkpoint does not load"

# Bad flags: exit 2, one line naming the problem, nothing started or written.
expect_error() {
  local needle=$1
  shift
  timeout 30 "$ember" train "${gpt[@]}" --steps 5 --out bad "$@" >out 2>err
  local rc=$?
  [[ $rc == 2 ]] || fail "ember train $* exited $rc, expected 2"
  grep -q -- "$needle" err || fail "ember train $*: stderr lacks '$needle': $(cat err)"
  [[ $(grep -c . err) == 1 ]] || fail "ember train $*: stderr is not one line: $(cat err)"
}
expect_error "--nproc must be an integer in \[1, 1024\] (got '0')" --nproc 0
expect_error "--nproc must be an integer" --nproc two
expect_error "--nproc must be an integer" --nproc 99999999999999999999
expect_error "must be divisible by --nproc 3" --nproc 3
expect_error "not both" --nproc 2 --distributed
expect_error "--distributed needs RANK" --distributed
expect_error "--heads must divide --dim" --nproc 2 --heads 3
# The batch of a checkpoint to resume counts too; the checkpoint and its metrics stay as they were.
cp u1/metrics.jsonl metrics.before
timeout 30 "$ember" train --out u1 --resume --steps 25 --nproc 3 >out 2>err
rc=$?
[[ $rc == 2 ]] && grep -q "must be divisible by --nproc 3" err || fail "resume on 3 ranks: exit $rc, $(cat err)"
cmp -s u1/metrics.jsonl metrics.before && cmp -s u1/checkpoint.safetensors p1/checkpoint.safetensors ||
  fail "a rejected resume changed its --out"
timeout 30 "$ember" run --nproc-per-node 3 -- "$ember" train "${gpt[@]}" --steps 5 --out bad \
  --distributed >out 2>&1
rc=$?
[[ $rc == 2 ]] || fail "3 ranks on a batch of 8 exited $rc, expected 2"
grep -q "divisible by WORLD_SIZE 3" out || fail "3 ranks on a batch of 8: $(cat out)"
[[ ! -e bad ]] || fail "a rejected run created its --out folder"

finish train_nproc_test
