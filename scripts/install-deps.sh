#!/usr/bin/env bash
# Install Ember's build dependencies from Debian's archive (Debian 12 "bookworm").
# Installs only what is missing; quiet and idempotent when everything is already there.
# Runs as root directly, or through sudo when run as another user.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git
  libopenblas-openmp-dev liblapacke-dev
  libdnnl-dev libsleef-dev
  # Debian's dnnl-config.cmake does find_package(OpenCL REQUIRED) (GPU runtime OCL), but
  # libdnnl-dev only Recommends the OpenCL development files, so name them.
  ocl-icd-opencl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev
  zlib1g-dev
  libgloo-dev libopenmpi-dev openmpi-bin
  clang-format
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != "installed" ]]; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

if [[ $(id -u) -eq 0 ]]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1; then
  SUDO=(sudo)
else
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: not root and sudo is not available; install them as root." >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o Dpkg::Use-Pty=0 --no-install-recommends \
  "${missing[@]}"
echo "install-deps: done"
