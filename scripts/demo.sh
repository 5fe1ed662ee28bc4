#!/usr/bin/env bash
# Install what is missing, build Ember (preset `default`) and run the demo program.
#
#   bash scripts/demo.sh [ARGS...]     (ARGS are passed to the demo)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export CCACHE_BASEDIR="$root"

bash scripts/install-deps.sh
echo "==> configure (preset default)"
cmake --preset default -DEMBER_BUILD_EXAMPLES=ON >/dev/null
echo "==> build"
cmake --build --preset default -j "$(nproc)" --target ember_demo
echo "==> run build/default/examples/ember_demo"
exec "$root/build/default/examples/ember_demo" "$@"
