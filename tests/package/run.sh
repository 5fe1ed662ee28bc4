#!/usr/bin/env bash
# Package test: install a built Ember tree into a temporary prefix, then consume it from
# outside, once through find_package(Ember) and once through pkg-config.
#
#   bash tests/package/run.sh BUILD_DIR [EXPECTED_VERSION]
set -euo pipefail

if (($# < 1)); then
  echo "usage: $0 BUILD_DIR [EXPECTED_VERSION]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
expected=${2:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source_dir=$(cd "$here/../.." && pwd)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ember-package.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"

# Run a step quietly; show its output only when it fails.
quiet() {
  local log="$tmp/step.log"
  if ! "$@" >"$log" 2>&1; then
    echo "FAILED: $*" >&2
    cat "$log" >&2
    exit 1
  fi
}

echo "== install $build -> $prefix"
quiet cmake --install "$build" --prefix "$prefix"

# Every public header in the source tree must be installed.
if [[ -d "$source_dir/include/ember" ]]; then
  (cd "$source_dir/include" && find ember -type f | sort) >"$tmp/headers.src"
  # ember/kernels holds private kernel headers for generated code (Note [Code cache]).
  (cd "$prefix/include" && find ember -type f -not -path 'ember/kernels/*' | sort) >"$tmp/headers.inst"
  if ! diff -u "$tmp/headers.src" "$tmp/headers.inst"; then
    echo "FAILED: installed headers differ from include/ember" >&2
    exit 1
  fi
  echo "   $(wc -l <"$tmp/headers.src") public headers installed"
fi

for f in EmberConfig.cmake EmberConfigVersion.cmake EmberTargets.cmake; do
  if ! find "$prefix" -name "$f" | grep -q .; then
    echo "FAILED: $f not installed" >&2
    exit 1
  fi
done

echo "== find_package(Ember)"
generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
quiet cmake -S "$here" -B "$tmp/consumer" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DEMBER_EXPECTED_VERSION="$expected"
quiet cmake --build "$tmp/consumer"
"$tmp/consumer/consumer" ${expected:+"$expected"}

echo "== installed bin/ember runs from the prefix (RUNPATH \$ORIGIN/../lib)"
if ! env -u LD_LIBRARY_PATH "$prefix/bin/ember" info >"$tmp/info" 2>&1; then
  echo "FAILED: $prefix/bin/ember info" >&2
  cat "$tmp/info" >&2
  exit 1
fi
grep -q "OpenBLAS" "$tmp/info" || { echo "FAILED: ember info output" >&2; exit 1; }

echo "== find_package(Torch): a libtorch program, unchanged"
quiet cmake -S "$here/torch" -B "$tmp/torch-consumer" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix"
quiet cmake --build "$tmp/torch-consumer"
env -u LD_LIBRARY_PATH "$tmp/torch-consumer/torch_consumer"

echo "== pkg-config ember"
pc=$(find "$prefix" -name ember.pc -print -quit)
if [[ -z "$pc" ]]; then
  echo "FAILED: ember.pc not installed" >&2
  exit 1
fi
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$pc")
pc_version=$(pkg-config --modversion ember)
echo "   pkg-config --modversion ember = $pc_version"
if [[ -n "$expected" && "$pc_version" != "$expected" ]]; then
  echo "FAILED: ember.pc has version $pc_version, expected $expected" >&2
  exit 1
fi
libdir=$(pkg-config --variable=libdir ember)
read -r -a pc_flags <<<"$(pkg-config --cflags --libs ember)"
quiet "${CXX:-c++}" -std=c++20 -Wall -Wextra -Werror "$here/main.cpp" -o "$tmp/consumer-pc" \
  "${pc_flags[@]}" "-Wl,-rpath,$libdir"
"$tmp/consumer-pc" ${expected:+"$expected"}

echo "== the code cache compiles generated code against the installed kernel headers"
quiet "${CXX:-c++}" -std=c++20 -Wall -Wextra -Werror "$here/codecache_main.cpp" -o "$tmp/codecache" \
  -I"$source_dir/src" "${pc_flags[@]}" "-Wl,-rpath,$libdir"
env -u LD_LIBRARY_PATH -u EMBER_KERNEL_INCLUDE_DIR EMBER_CACHE_DIR="$tmp/kernel-cache" "$tmp/codecache"

echo "== package test passed"
