#!/usr/bin/env bash
# Builds the C++ programs of pytorch/examples (cpp/autograd, cpp/regression, cpp/mnist,
# cpp/dcgan, cpp/custom-dataset, cpp/distributed) unchanged against an installed Ember, runs each
# briefly on generated data and checks that it reaches a sensible result.
#
#   bash scripts/pytorch-examples.sh PATH-TO-pytorch-examples [EMBER_BUILD_DIR]
#
# EMBER_BUILD_DIR (default build/default) is installed into a temporary prefix, whose
# TorchConfig.cmake answers the examples' find_package(Torch). Their CMake files are used as
# they are; the script only passes -DDOWNLOAD_MNIST=OFF (no network: it writes small MNIST-format
# files instead), dcgan's run length (--epochs 1), and, for dcgan, the folder of a minimal
# <argparse/argparse.hpp> (Debian packages no C++ argparse). custom-dataset needs OpenCV
# (Debian's libopencv-dev) and reads a few generated images. distributed (dist-mnist) runs as two
# ranks under Open MPI's mpirun (as root in CI, hence --allow-run-as-root); it links the
# lib/libc10d.a that Ember installs for libtorch's CMake files. Exit status: the number of
# examples that failed to build or run. EXAMPLES="mnist dcgan" runs only those; KEEP=1 keeps
# the work folder (builds, logs, generated data) and prints its path.
set -uo pipefail

if (($# < 1)) || [[ ! -d $1/cpp ]]; then
  echo "usage: $0 PATH-TO-pytorch-examples [EMBER_BUILD_DIR]" >&2
  exit 2
fi
examples=$(cd "$1/cpp" && pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${2:-$root/build/default}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ember-pytorch-examples.XXXXXX")
if [[ ${KEEP:-0} == 1 ]]; then
  echo "== work folder: $work"
else
  trap 'rm -rf "$work"' EXIT
fi
prefix=$work/prefix
python=$(command -v python3)
generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi

echo "== installing $build into $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || {
  cat "$work/install.log"
  exit 1
}

# MNIST-format files (uncompressed IDX) of N training and N/4 test images: digit c is a bright
# bar at row 4 + 2c over noise, easy to learn, so a short run must reach a high accuracy.
write_mnist() {
  "$python" - "$1" "$2" <<'PY'
import os, random, struct, sys
root, n = sys.argv[1], int(sys.argv[2])
os.makedirs(root, exist_ok=True)
rng = random.Random(0)
def write(prefix, count):
    images, labels = bytearray(), bytearray()
    for i in range(count):
        c = i % 10
        img = [rng.randrange(0, 60) for _ in range(28 * 28)]
        for r in (4 + 2 * c, 5 + 2 * c):
            for x in range(4, 24):
                img[r * 28 + x] = 255
        images += bytes(img)
        labels.append(c)
    with open(os.path.join(root, prefix + "-images-idx3-ubyte"), "wb") as f:
        f.write(struct.pack(">IIII", 2051, count, 28, 28) + images)
    with open(os.path.join(root, prefix + "-labels-idx1-ubyte"), "wb") as f:
        f.write(struct.pack(">II", 2049, count) + labels)
write("train", n)
write("t10k", n // 4)
PY
}

# custom-dataset's inputs: info.txt ("path label train|test") and binary PPM images (which
# OpenCV reads without codecs): label 0 reddish, label 1 bluish.
write_images() {
  "$python" - "$1" <<'PY'
import os, random, sys
root = sys.argv[1]
rng = random.Random(0)
os.makedirs(os.path.join(root, "dataset"), exist_ok=True)
lines = []
for i in range(20):
    label, kind = i % 2, ("train" if i < 16 else "test")
    name = "img%02d.ppm" % i
    px = bytearray()
    for _ in range(64 * 64):
        base = (200, 40, 40) if label == 0 else (40, 40, 200)
        px += bytes(min(255, max(0, v + rng.randrange(-30, 30))) for v in base)
    with open(os.path.join(root, "dataset", name), "wb") as f:
        f.write(b"P6\n64 64\n255\n" + px)
    lines.append("%s %d %s" % (name, label, kind))
with open(os.path.join(root, "info.txt"), "w") as f:
    f.write("\n".join(lines))
PY
}

failures=0
report=()
# check NAME LOG KEY PATTERN: the last line of the run's log that matches KEY must match PATTERN
# (both extended regexes), so that the final result is what counts.
check() {
  local last
  last=$(grep -E "$3" "$2" | tail -1)
  if [[ -n $last ]] && grep -Eq "$4" <<<"$last"; then return 0; fi
  echo "   FAILED: $1's last line matching /$3/ does not match /$4/; last lines:"
  tail -5 "$2" | sed 's/^/     /'
  return 1
}

# run_example NAME KEY PATTERN [ARGS...]: configure, build, run in a fresh folder, check.
run_example() {
  local name=$1 key=$2 pattern=$3
  shift 3
  if [[ -n ${EXAMPLES:-} && " $EXAMPLES " != *" $name "* ]]; then return; fi
  local dir=$work/$name
  echo "== $name"
  if ! cmake -S "$examples/$name" -B "$dir/build" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
    -DDOWNLOAD_MNIST=OFF -DCMAKE_CXX_FLAGS="-O2 -I$root/scripts/pytorch-examples" \
    >"$dir.configure.log" 2>&1 ||
    ! cmake --build "$dir/build" -j2 >"$dir.build.log" 2>&1; then
    echo "   BUILD FAILED"
    cat "$dir.configure.log" "$dir.build.log" 2>/dev/null | grep -E "error|Error" | head -20
    report+=("$name: build FAILED")
    failures=$((failures + 1))
    return
  fi
  local exe exe_name=$name cwd=$dir/run
  local launch=()
  mkdir -p "$dir/run"
  case $name in
    mnist) write_mnist "$dir/run/data" 1280 ;;
    dcgan) write_mnist "$dir/run/data" 640 ;;
    custom-dataset) write_images "$dir/run" ;;
    distributed)
      # dist-mnist reads ../data; two ranks share 1280 images.
      exe_name=dist-mnist cwd=$dir/run/rank
      launch=(mpirun --allow-run-as-root --oversubscribe -np 2)
      mkdir -p "$cwd"
      write_mnist "$dir/run/data" 1280
      ;;
  esac
  exe=$(find "$dir/build" -maxdepth 1 -type f -executable -name "$exe_name" -print -quit)
  local start=$SECONDS
  local status=0
  (cd "$cwd" && env -u LD_LIBRARY_PATH timeout 900 "${launch[@]}" "$exe" "$@") >"$dir.run.log" 2>&1 ||
    status=$?
  if ((status != 0)); then
    echo "   RUN FAILED (exit status $status); last lines:"
    tail -5 "$dir.run.log" | sed 's/^/     /'
    report+=("$name: run FAILED")
    failures=$((failures + 1))
    return
  fi
  if ! check "$name" "$dir.run.log" "$key" "$pattern"; then
    report+=("$name: result FAILED")
    failures=$((failures + 1))
    return
  fi
  tail -2 "$dir.run.log" | sed 's/^/   /'
  report+=("$name: built and ran ($((SECONDS - start)) s)")
}

# autograd's last line: the custom MulConstant function's gradient, 5.5 for each element.
run_example autograd '5\.5' '^tensor\(\[5\.5000, 5\.5000\]\)$'
# regression stops once the loss is below 1e-3.
run_example regression '^Loss: ' '^Loss: 0\.000[0-9]* after [0-9]+ batches'
# 10 epochs (the example's own count) on the small generated set: accuracy 0.9 or more.
run_example mnist 'Test set: ' 'Accuracy: (0\.9[0-9]*|1\.000)$'
# One epoch: both losses finite.
run_example dcgan 'D_loss: ' 'D_loss: [0-9.]+ \| G_loss: [0-9.]+$' --epochs 1
# 10 epochs of AlexNet on 16 images: the 4 test images (2 reddish, 2 bluish) all right.
run_example custom-dataset 'Test Loss: ' 'Test Loss: [0-9.e-]+[[:space:]]+Acc: 1$'
# 10 epochs (the example's own count) on two ranks, with the gradients averaged by allreduce;
# rank 0 then tests on the generated test set (percent correct).
run_example distributed 'Test Accuracy - ' 'Test Accuracy - (9[0-9]|100)(\.[0-9]*)?$'

echo "== summary"
printf '   %s\n' "${report[@]}"
exit "$failures"
