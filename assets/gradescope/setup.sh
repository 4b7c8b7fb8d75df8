#!/usr/bin/env bash
# pmpplab's Gradescope autograder for lab @LAB@, made by `pmpplab export gradescope`.
# Gradescope runs this once, as root, while it builds the autograder's image, with this
# archive unpacked in /autograder/source: it installs what pmpplab needs (Ubuntu or
# Debian packages, bubblewrap for the sandbox, and nvcc from NVIDIA's CUDA repository,
# which compiles every student program, also for the emulator) and builds pmpplab from
# the source in pmpplab/.
#   PMPPLAB_AUTOGRADER_ROOT  replaces /autograder (pmpplab's own test uses a fake root)
#   PMPPLAB_SETUP_NO_APT=1   installs nothing (a machine that has the packages already)
#   PMPPLAB_CUDA=13-0        the CUDA release whose nvcc is installed
set -euo pipefail
root=${PMPPLAB_AUTOGRADER_ROOT:-/autograder}
src=$root/source/pmpplab
cuda=${PMPPLAB_CUDA:-13-0}

if [ -z "${PMPPLAB_SETUP_NO_APT:-}" ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends ca-certificates wget gcc g++ libc6-dev \
    pkg-config ninja-build meson python3-pip libcyaml-dev libyaml-dev libjansson-dev \
    libncurses-dev libmd4c-dev bubblewrap util-linux
  # pmpplab needs meson 1.0 or later (Ubuntu 22.04 has 0.61)
  if ! meson --version | awk -F. '{ exit !($1 >= 1) }'; then
    python3 -m pip install -q 'meson>=1.0' || python3 -m pip install -q --break-system-packages 'meson>=1.0'
  fi
  if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
    . /etc/os-release
    repo=$ID${VERSION_ID//./}      # ubuntu2204, ubuntu2404, debian12
    wget -q -O /tmp/cuda-keyring.deb \
      "https://developer.download.nvidia.com/compute/cuda/repos/$repo/x86_64/cuda-keyring_1.1-1_all.deb"
    dpkg -i /tmp/cuda-keyring.deb
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "cuda-nvcc-$cuda" "cuda-cudart-dev-$cuda"
    [ -e /usr/local/cuda ] || ln -s "/usr/local/cuda-${cuda//-/.}" /usr/local/cuda
  fi
fi

export PATH=/usr/local/cuda/bin:$PATH
cd "$src"
meson setup build -Dtests=disabled -Dbuildtype=release >/dev/null
ninja -C build >/dev/null
echo "pmpplab built in $src/build: grading lab @LAB@"
