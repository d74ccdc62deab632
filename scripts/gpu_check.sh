#!/usr/bin/env bash
# The GPU checks, for a machine with an NVIDIA GPU that cannot build geon itself (no network,
# another distribution). Two steps:
#   scripts/gpu_check.sh bundle OUT.tar.xz   here, after the main build (scripts/test.sh or
#       cmake --build build): the CUDA test and benchmark programs, geon-test-runner, geon-run,
#       the provider, the shared libraries they load from this system (oneDNN, protobuf,
#       onnx...) and the ONNX node test data, stripped, in one archive.
#   scripts/gpu_check.sh run BUNDLE_DIR [OUT_DIR]   there, in a checkout of the same commit
#       (for models/), with the archive unpacked: the CUDA tests, the CUDA engine benchmark, the
#       node tests with cuda first and on the CPU alone (every test the CPU passes must pass
#       with cuda first), and the committed models on both (outputs compared). Logs and JSON
#       go to OUT_DIR (default gpu-check-out); the exit status is 1 when a check fails.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GEON_BUILD_DIR:-build}

bundle() {
  local out=$1 stage
  stage=$(mktemp -d)
  mkdir -p "$stage/geon-gpu/bin" "$stage/geon-gpu/lib" "$stage/geon-gpu/provider"
  local programs=("$build/tests/geon_cuda_tests" "$build/bench/geon_cuda_engine_bench"
                  "$build/tools/geon-test-runner" "$build/tools/geon-run")
  for p in "${programs[@]}"; do
    [ -x "$p" ] || { echo "gpu_check: $p is missing: build with nvcc on PATH first" >&2; exit 1; }
    strip -o "$stage/geon-gpu/bin/$(basename "$p")" "$p"
  done
  strip -o "$stage/geon-gpu/provider/libgeon_provider.so.0" "$build/provider/libgeon_provider.so.0"
  ln -s libgeon_provider.so.0 "$stage/geon-gpu/provider/libgeon_provider.so"
  # What the programs load from this system beyond the C and C++ runtimes, which any glibc
  # distribution of the same age or newer has.
  for p in "${programs[@]}" "$build/provider/libgeon_provider.so.0"; do
    ldd "$p" | awk '$3 ~ /^\// {print $3}'
  done | sort -u | grep -v -E '/(libc|libm|libgcc_s|libstdc\+\+|ld-linux[^/]*|libpthread|libdl|librt)\.so' |
    while read -r lib; do cp -L "$lib" "$stage/geon-gpu/lib/"; done
  local data=/usr/share/libonnx-testdata/data/node
  [ -d "$data" ] && cp -r "$data" "$stage/geon-gpu/node"
  tar cJf "$out" -C "$stage" geon-gpu
  rm -rf "$stage"
  echo "gpu_check: wrote $out ($(du -h "$out" | cut -f1))"
}

run() {
  local dir=$1 out=${2:-gpu-check-out} status=0
  mkdir -p "$out"
  export LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  local lib=$dir/provider/libgeon_provider.so runner=$dir/bin/geon-test-runner
  if ! nvidia-smi -L 2>/dev/null; then
    echo "gpu_check: no NVIDIA GPU here (nvidia-smi found none): nothing to check" >&2
    return 1
  fi
  "$dir/bin/geon_cuda_tests" >"$out/cuda_tests.txt" 2>&1 || status=1
  grep -E '^\[  (PASSED|FAILED|SKIPPED) *\] [0-9]+ test' "$out/cuda_tests.txt" || true
  "$dir/bin/geon_cuda_engine_bench" --benchmark_min_time=0.2 >"$out/cuda_bench.txt" 2>&1 || status=1
  grep -E 'GB/s' "$out/cuda_bench.txt" || true
  if [ -d "$dir/node" ]; then
    "$runner" "$dir/node" --jobs "$(nproc)" --provider "$lib" --devices cuda,cpu.dnnl,cpu.generic \
      --json "$out/node_cuda.json" >"$out/node_cuda.txt" 2>&1 || status=1
    "$runner" "$dir/node" --jobs "$(nproc)" --provider "$lib" \
      --json "$out/node_cpu.json" >"$out/node_cpu.txt" 2>&1 || status=1
    python3 - "$out" <<'PY' || status=1
import json, sys
out = sys.argv[1]
cuda = {t["name"]: t["status"] for t in json.load(open(f"{out}/node_cuda.json"))}
cpu = {t["name"]: t["status"] for t in json.load(open(f"{out}/node_cpu.json"))}
lost = sorted(n for n, s in cpu.items() if s == "pass" and cuda.get(n) != "pass")
print(f"node tests: cpu {sum(s == 'pass' for s in cpu.values())} passed, cuda first "
      f"{sum(s == 'pass' for s in cuda.values())} passed of {len(cpu)}")
for n in lost:
    print(f"passes on the CPU, not with cuda first: {n}")
sys.exit(1 if lost else 0)
PY
  fi
  for m in mlp cnn; do
    for devices in cuda,cpu.dnnl,cpu.generic cpu.dnnl,cpu.generic; do
      mkdir -p "$out/$m-${devices%%,*}"
      "$dir/bin/geon-run" "models/$m.onnx" --dim batch=8 --seed 3 --provider "$lib" \
        --devices "$devices" --save-outputs "$out/$m-${devices%%,*}" \
        --report "$out/$m-${devices%%,*}.json" >/dev/null || status=1
    done
    python3 - "$out/$m-cuda" "$out/$m-cpu.dnnl" <<'PY' || status=1
import glob, os, sys
import numpy as np
worst = 0.0
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.npy"))):
    a, b = np.load(f), np.load(os.path.join(sys.argv[2], os.path.basename(f)))
    worst = max(worst, float(np.abs(a.astype(np.float64) - b).max()))
print(f"{os.path.basename(sys.argv[1])}: largest difference from the CPU run {worst:g}")
sys.exit(0 if worst <= 1e-4 else 1)
PY
  done
  echo "gpu_check: $( [ $status = 0 ] && echo passed || echo FAILED ) (logs in $out)"
  return $status
}

case ${1:-} in
  bundle) bundle "${2:?usage: gpu_check.sh bundle OUT.tar.xz}" ;;
  run) run "${2:?usage: gpu_check.sh run BUNDLE_DIR [OUT_DIR]}" "${3:-}" ;;
  *) echo "usage: scripts/gpu_check.sh bundle OUT.tar.xz | run BUNDLE_DIR [OUT_DIR]" >&2; exit 2 ;;
esac
