#!/usr/bin/env bash
# Install what is missing, build Ember (preset `default`) and run its main job: `ember train`
# with defaults (a character-level GPT on the embedded Jane Austen novels, about 4 minutes on
# 2 cores), then `ember generate` from the checkpoint it wrote. Outputs go to runs/gpt/.
# Extra arguments are passed to `ember train` (e.g. --steps 100, or --model cnn).
#
#   bash scripts/demo.sh [TRAIN FLAGS...]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export CCACHE_BASEDIR="$root"

bash scripts/install-deps.sh
echo "==> configure (preset default)"
cmake --preset default >/dev/null
echo "==> build"
cmake --build --preset default -j "$(nproc)" --target ember_cli
echo "==> build/default/ember train --overwrite $*"
build/default/ember train --overwrite --sample 0 "$@"
if [[ " $* " != *" --model "* || " $* " == *" --model gpt "* ]]; then
  out=runs/gpt
  for ((i = 1; i <= $#; i++)); do [[ ${!i} == --out ]] && j=$((i + 1)) && out=${!j}; done
  echo
  echo "==> build/default/ember generate --checkpoint $out --prompt \"It is a truth\" --tokens 300"
  build/default/ember generate --checkpoint "$out" --prompt "It is a truth" --tokens 300 \
    --temperature 0.8 --top-k 40 --seed 1
fi
