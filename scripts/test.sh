#!/usr/bin/env bash
# The README's test command: installs what is missing, builds everything (CUDA sources
# included when nvcc exists) and runs every test through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --with-torch  # torch exports the model suite of tests/models
build=${GEON_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${GEON_CMAKE_ARGS:-}
cmake --build "$build" -j "${GEON_JOBS:-2}"
ctest --test-dir "$build" --output-on-failure -j "${GEON_JOBS:-2}"
