#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image
# (the zip is unpacked into /autograder/source). It installs what the grader
# needs, builds it, checks the hidden cases once, and makes the private
# files (hidden/, secret-seed, gpu-host/) root's alone: the submission's
# build and its runners run as other uids and never read them.
#
#   setup.sh [--no-install | --list-packages]
#
# --no-install skips the packages (a machine that has them);
# --list-packages prints them and exits. The root is $SPMV_AUTOGRADER_ROOT
# (default /autograder); with $SPMV_AUTOGRADER_BUILD set to a grader already
# built there, nothing is built.
set -euo pipefail
root="${SPMV_AUTOGRADER_ROOT:-/autograder}"
source_dir="$root/source"
lab="$source_dir/spmv-lab"
install=1
case "${1:-}" in
  --no-install) install=0 ;;
  --list-packages) install=list ;;
  "") ;;
  *) echo "setup.sh: unknown option $1 (known: --no-install, --list-packages)" >&2; exit 2 ;;
esac

# The quick start's packages (one list: tools/quickstart's packages=(...)
# line), and what the autograder adds: ssh to reach the GPU host, wget and
# the certificates for NVIDIA's repository.
quickstart_packages="$(sed -n 's/^packages=(\(.*\))$/\1/p' "$lab/tools/quickstart")"
if [ -z "$quickstart_packages" ]; then
  echo "setup.sh: found no packages=(...) line in $lab/tools/quickstart" >&2
  exit 1
fi
read -r -a packages <<<"$quickstart_packages"
packages+=(python3 openssh-client ca-certificates wget)
if [ "$install" = list ]; then
  echo "${packages[*]}"
  exit 0
fi

if [ "$install" = 1 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${packages[@]}" >/dev/null
  # The CUDA toolkit (nvcc compiles the submissions; no GPU is needed for
  # that), from NVIDIA's repository for this release (ubuntu2404, debian12).
  if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
    . /etc/os-release
    distro="$ID${VERSION_ID//./}"
    wget -q "https://developer.download.nvidia.com/compute/cuda/repos/$distro/x86_64/cuda-keyring_1.1-1_all.deb" \
      -O /tmp/cuda-keyring.deb
    dpkg -i /tmp/cuda-keyring.deb >/dev/null
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends cuda-toolkit >/dev/null
  fi
fi
export PATH="$PATH:/usr/local/cuda/bin"

# The private files: root's alone, folders 0700, files 0600.
for private in "$source_dir/hidden" "$source_dir/secret-seed" "$source_dir/gpu-host"; do
  [ -e "$private" ] || continue
  chown -R root:root "$private"
  find "$private" -type d -exec chmod 0700 {} +
  find "$private" -type f -exec chmod 0600 {} +
done

if [ -n "${SPMV_AUTOGRADER_BUILD:-}" ]; then
  build="$SPMV_AUTOGRADER_BUILD"
  echo "setup.sh: using the grader built in $build"
else
  build="$lab/build-release"
  (cd "$lab" && cmake --preset release -DSPMV_BUILD_TESTS=OFF && cmake --build --preset release)
fi
# Reads, converts and checks every hidden case now (generated ones are
# cached), so a broken case shows here rather than in a student's results.
"$build/bin/spmv-cases" validate "$source_dir/hidden"
# The generated hidden matrices cached beside the grader are as private as
# their specs (a grader this script did not build keeps its own modes).
if [ -z "${SPMV_AUTOGRADER_BUILD:-}" ] && [ -d "$build/cache" ]; then
  chmod 0700 "$build/cache"
fi
