#!/usr/bin/env bash
# Builds the Matrix Market reader's libFuzzer target with clang (ASan and
# UBSan on) and fuzzes it for a bounded time.
#
# Usage: grader/fuzz/run-fuzz.sh [seconds] [build-dir]
#   seconds    total fuzzing time (default 60)
#   build-dir  binary, corpus and crash reproducers; default
#              $SPMV_FUZZ_BUILD_DIR, else build-fuzz/ in the repository
# Environment: SPMV_FUZZ_CXX names the compiler (default clang++, clang++-14).
#
# Exits non-zero on a finding (crash, sanitizer report, uncaught exception,
# leak, timeout, memory limit, or a failed check in the target); the input
# that caused it is saved under <build-dir>/artifacts/ and can be replayed
# with: <build-dir>/fuzz_matrix_market <artifact>
set -euo pipefail

seconds=${1:-60}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${2:-${SPMV_FUZZ_BUILD_DIR:-$root/build-fuzz}}
cxx=${SPMV_FUZZ_CXX:-$(command -v clang++ || command -v clang++-14 || true)}
if [[ -z "$cxx" ]]; then
  echo "run-fuzz.sh: no clang++ found (set SPMV_FUZZ_CXX)" >&2
  exit 2
fi

# The reader and what it calls (the formats' validation and conversions);
# the rest of spmv_core is not needed.
sources=(
  "$root/grader/fuzz/fuzz_matrix_market.cpp"
  "$root/grader/core/src/matrix_market.cpp"
  "$root/grader/core/src/mm_assemble.cpp"
  "$root/grader/core/src/formats/"*.cpp
  "$root/grader/core/src/memory_fit.cpp"
)
binary="$build/fuzz_matrix_market"
mkdir -p "$build/corpus" "$build/artifacts"

# Rebuilt only when a source or header is newer than the binary.
if [[ ! -x "$binary" ]] || [[ -n "$(find "${sources[@]}" "$root/grader/core/src" "$root/grader/core/include" \
    "$root/contract/include" -newer "$binary" \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) -print -quit)" ]]; then
  echo "run-fuzz.sh: building $binary with $cxx"
  "$cxx" -std=c++20 -O1 -g -fno-omit-frame-pointer \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I "$root/grader/core/include" -I "$root/grader/core/src" -I "$root/contract/include" "${sources[@]}" -lz \
    -o "$binary.tmp"
  mv "$binary.tmp" "$binary"
fi

# Seeds: the repository's small test matrices, valid and invalid, copied
# afresh each run; new inputs the fuzzer finds accumulate in corpus/.
rm -rf "$build/seeds"
mkdir -p "$build/seeds"
find "$root/testcases" -type f -name '*.mtx' -size -16k -exec cp -t "$build/seeds" {} +

echo "run-fuzz.sh: fuzzing for ${seconds}s"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
"$binary" \
  -max_total_time="$seconds" -rss_limit_mb=1024 -malloc_limit_mb=512 -timeout=10 \
  -dict="$root/grader/fuzz/matrix_market.dict" \
  -artifact_prefix="$build/artifacts/" -print_final_stats=1 \
  "$build/corpus" "$build/seeds"
