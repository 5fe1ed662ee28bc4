#!/usr/bin/env bash
# The `ember` command end to end: exit statuses, one-line errors, and a tiny train, resume,
# generate and eval. Usage: cli_test.sh path/to/ember
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

# expect_error NEEDLE ARGS...: exit status 2, one line on stderr containing NEEDLE.
expect_error() {
  local needle=$1
  shift
  "$ember" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [[ $rc == 2 ]] || fail "ember $* exited $rc, expected 2"
  grep -q -- "$needle" "$tmp/err" || fail "ember $*: stderr lacks '$needle': $(cat "$tmp/err")"
  [[ $(grep -c . "$tmp/err") == 1 ]] || fail "ember $*: stderr is not one line: $(cat "$tmp/err")"
}

head -c 6000 /dev/urandom | base64 >"$tmp/text.txt"
: >"$tmp/empty.txt"
tiny=(--data "$tmp/text.txt" --context 16 --layers 1 --heads 2 --dim 16 --batch-size 4
      --eval-every 5)

"$ember" info >"$tmp/info" || fail "ember info exited $?"
# Note [OpenMP wait policy]: a short OpenMP spin unless the user chose a policy.
env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT OMP_DISPLAY_ENV=verbose "$ember" info >"$tmp/omp" 2>&1
grep -q "GOMP_SPINCOUNT = '1000'" "$tmp/omp" || fail "ember does not default to GOMP_SPINCOUNT=1000"
env -u OMP_WAIT_POLICY GOMP_SPINCOUNT=777 OMP_DISPLAY_ENV=verbose "$ember" info >"$tmp/omp" 2>&1
grep -q "GOMP_SPINCOUNT = '777'" "$tmp/omp" || fail "ember overrides the user's GOMP_SPINCOUNT"
grep -q "GOMP_SPINCOUNT = '1000'" "$tmp/omp" && fail "ember overrides the user's GOMP_SPINCOUNT"
grep -q "OpenBLAS" "$tmp/info" || fail "ember info does not name the BLAS library"
expect_error "--steps" train --steps 0 --out "$tmp/a"
expect_error "--dim" train "${tiny[@]}" --dim 15 --out "$tmp/a"
expect_error "--model" train --model rnn --out "$tmp/a"
expect_error "not found" train --data "$tmp/nope.txt" --out "$tmp/a"
expect_error "empty" train --data "$tmp/empty.txt" --out "$tmp/a"
expect_error "no checkpoint" generate --checkpoint "$tmp/a"
expect_error "" train --no-such-flag
# Every flag is checked before anything runs or is written (--sample used to fail after training).
expect_error "--sample must be an integer" train "${tiny[@]}" --steps 2 --out "$tmp/a" --sample 99999999999999999999
expect_error "--sample must be an integer" train "${tiny[@]}" --steps 2 --out "$tmp/a" --sample -1
expect_error "--profile 2 needs 3 training steps" train "${tiny[@]}" --steps 2 --profile 2 --out "$tmp/a"
[[ ! -e $tmp/a ]] || fail "a rejected run created its --out folder"

"$ember" train "${tiny[@]}" --steps 10 --out "$tmp/run" --sample 20 >"$tmp/train.log" 2>&1 ||
  fail "tiny train exited $?: $(tail -3 "$tmp/train.log")"
for f in checkpoint.safetensors metrics.jsonl loss.svg; do
  [[ -s $tmp/run/$f ]] || fail "train did not write $f"
done
grep -q "sample:" "$tmp/train.log" || fail "train printed no sample"
expect_error "already holds a checkpoint" train "${tiny[@]}" --steps 10 --out "$tmp/run"
expect_error "another configuration" train "${tiny[@]}" --dim 32 --steps 12 --out "$tmp/run" --resume
"$ember" train --steps 12 --out "$tmp/run" --resume --sample 0 >"$tmp/resume.log" 2>&1 ||
  fail "resume exited $?: $(tail -3 "$tmp/resume.log")"
[[ $(grep -c '"step":' "$tmp/run/metrics.jsonl") == 13 ]] || fail "metrics after resume"
"$ember" generate --checkpoint "$tmp/run" --prompt "ab" --tokens 30 --seed 3 >"$tmp/g1" ||
  fail "generate exited $?"
"$ember" generate --checkpoint "$tmp/run" --prompt "ab" --tokens 30 --seed 3 >"$tmp/g2"
cmp -s "$tmp/g1" "$tmp/g2" || fail "generate is not reproducible for a seed"
expect_error "--temperature" generate --checkpoint "$tmp/run" --temperature 0
"$ember" eval --checkpoint "$tmp/run" | grep -q "validation loss" || fail "eval printed no loss"
printf 'garbage' >"$tmp/run/checkpoint.safetensors"
expect_error "corrupt" eval --checkpoint "$tmp/run"

finish cli_test
