#!/usr/bin/env bash
# Note [CPU capability]: libember runs on any x86-64 CPU. Checks, on the built library, that
# every function outside the per-capability kernel copies (inline namespaces cap_avx2 and
# cap_avx512, and the eval_cpu_for<TagAvx2/TagAvx512> specialisations) is free of VEX/EVEX
# instructions (AVX and later): the rest of the library is compiled for the baseline, and where
# a copy's inline function is shared with the rest, the linker kept the baseline one.
#
#   bash tests/tools/isa_check.sh path/to/libember.so
set -euo pipefail
lib=$1
[[ -f $lib ]] || { echo "isa_check: no library at $lib" >&2; exit 2; }
# Addresses of the local (static) functions: each belongs to one copy and may use its set.
locals=$(mktemp)
trap 'rm -f "$locals"' EXIT
nm --defined-only "$lib" | awk '$2 == "t" { print $1 }' | sed 's/^0*//' >"$locals"
objdump -d --no-show-raw-insn -C "$lib" | awk -v locals="$locals" '
  BEGIN { while ((getline a < locals) > 0) local[a] = 1 }
  /^[0-9a-f]+ <.*>:$/ {
    addr = $1; sub(/^0*/, "", addr)
    name = substr($0, index($0, "<") + 1); sub(/>:$/, "", name)
    skip = (addr in local) || name ~ /cap_avx2|cap_avx512|TagAvx2|TagAvx512/
    next
  }
  skip || !/^ *[0-9a-f]+:\t/ { next }
  {
    insn = $0; sub(/^ *[0-9a-f]+:\t/, "", insn)
    split(insn, w, /[ \t]+/)
    if ((w[1] ~ /^v/ && w[1] !~ /^ver[rw]$/) || insn ~ /%[yz]mm|%k[0-7]/) {
      if (!(name in bad)) { bad[name] = insn; n++ }
    }
  }
  END {
    for (f in bad) print "isa_check: baseline function uses AVX: " f ": " bad[f]
    if (n) { print "isa_check: " n " functions"; exit 1 }
    print "isa_check: ok"
  }'
