#!/usr/bin/env bash
# Install what is missing, build Ember (preset `default`) and run the demo: libtorch's MNIST CNN
# example (examples/mnist.cpp) on the embedded Fashion-MNIST subset.
#
#   bash scripts/demo.sh [EPOCHS [MAX_BATCHES_PER_EPOCH]]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export CCACHE_BASEDIR="$root"

bash scripts/install-deps.sh
echo "==> configure (preset default)"
cmake --preset default -DEMBER_BUILD_EXAMPLES=ON >/dev/null
echo "==> build"
cmake --build --preset default -j "$(nproc)" --target ember_mnist
echo "==> run build/default/examples/ember_mnist (a CNN on the embedded Fashion-MNIST)"
cd "$root/build/default"
exec "$root/build/default/examples/ember_mnist" "$root/data/fashion-mnist" "$@"
