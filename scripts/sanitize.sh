#!/usr/bin/env bash
# The whole test suite again, built with clang under AddressSanitizer (with LeakSanitizer) and
# UBSan, every geon object also carrying libFuzzer's coverage so that the fuzz targets of
# tests/fuzz build and run (time-bounded) in the same tree. Called by scripts/test.sh after the
# main build's tests; runnable alone. CUDA, the benchmarks and the packaging tests (which
# install uninstrumented copies of their own) are left to the main build.
# Usage: scripts/sanitize.sh [ctest arguments...]   e.g. -R Provider
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build=${GEON_ASAN_BUILD_DIR:-build-asan}
# The model suite's torch exports are shared with the main build (exported there first).
models=$(realpath -m "${GEON_BUILD_DIR:-build}/models")
CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DGEON_SANITIZE=ON -DGEON_FUZZ=ON \
  -DGEON_CUDA=OFF -DGEON_BUILD_BENCH=OFF -DGEON_ASAN_TESTS=OFF -DGEON_MODEL_CACHE="$models" \
  ${GEON_SANITIZE_CMAKE_ARGS:-}
cmake --build "$build" -j "${GEON_JOBS:-2}"
# Any report fails its test: ASan and UBSan abort (-fno-sanitize-recover), LSan at exit.
# intercept_tls_get_addr=0: clang 14's LeakSanitizer misreads the dynamic TLS of glibc 2.36
# (a thread with a dlopened library's thread_local crashes its tracer: "Tracer caught signal
# 11"); static TLS, stacks and globals are still scanned.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:intercept_tls_get_addr=0:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build" --output-on-failure -j "${GEON_JOBS:-2}" "$@"
