#!/usr/bin/env bash
# The README's run command: installs what is missing, builds only the provider library and
# geon-run, runs the committed MLP through the loaded provider in perf mode, and writes the
# placement report. Usage: scripts/run.sh [extra geon-run options]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build=${GEON_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${GEON_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "${GEON_JOBS:-2}" --target geon_provider geon-run
report="$build/mlp_placement.json"
"$build/tools/geon-run" models/mlp.onnx --dim batch=8 --perf --repeat 200 --report "$report" "$@"
echo "run: placement report written to $report"
