#!/usr/bin/env bash
# The README's test command: installs what is missing, builds everything (CUDA sources
# included when nvcc exists) and runs every test through ctest; then the whole suite again
# under AddressSanitizer, LeakSanitizer and UBSan with the fuzz targets time-bounded
# (scripts/sanitize.sh), and the concurrency tests under ThreadSanitizer (scripts/tsan.sh).
# GEON_SANITIZERS=0 stops after the main build's tests (for a quick local run; CI runs all).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --with-torch  # torch exports the model suite of tests/models
build=${GEON_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${GEON_CMAKE_ARGS:-}
cmake --build "$build" -j "${GEON_JOBS:-2}"
ctest --test-dir "$build" --output-on-failure -j "${GEON_JOBS:-2}"
if [ "${GEON_SANITIZERS:-1}" != 0 ]; then
  scripts/sanitize.sh
  scripts/tsan.sh
fi
