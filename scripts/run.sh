#!/usr/bin/env bash
# The README's run command: installs what is missing, builds only the provider library and
# geon-run, runs the committed CNN (models/cnn.onnx) through the loaded provider in perf mode,
# and writes the placement report. Usage: scripts/run.sh [extra geon-run options]
# GEON_RUN_MODEL=models/mlp.onnx runs the MLP instead (its batch dim is named "batch" too).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build=${GEON_BUILD_DIR:-build}
model=${GEON_RUN_MODEL:-models/cnn.onnx}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${GEON_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "${GEON_JOBS:-2}" --target geon_provider geon-run
report="$build/$(basename "$model" .onnx)_placement.json"
"$build/tools/geon-run" "$model" --dim batch=8 --perf --repeat 200 --report "$report" "$@"
echo "run: placement report written to $report"
