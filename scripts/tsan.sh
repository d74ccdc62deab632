#!/usr/bin/env bash
# The concurrency tests under ThreadSanitizer (issue 13): clang builds only the provider, its
# C ABI tests and core's tests in build-tsan, and ctest runs the tests that use threads: runs
# sharing a session, sessions made and released on many threads, runs racing release, handle
# lifetimes, the executor's and the engine's thread pools. Any TSan report fails (exit 66).
# Usage: scripts/tsan.sh [ctest arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build=${GEON_TSAN_BUILD_DIR:-build-tsan}
# TSan of clang 14 maps its shadow at fixed addresses and dies at start ("unexpected memory
# mapping") when the kernel randomises mmap with more than 28 bits (vm.mmap_rnd_bits, raised on
# recent kernels). Without address randomisation (setarch -R, inherited by every child) it
# starts; that covers the build too, whose gtest_discover_tests runs the instrumented tests.
run=()
rnd_bits=$(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null || echo 28)
if [ "$rnd_bits" -gt 28 ]; then
  echo "tsan: vm.mmap_rnd_bits is $rnd_bits; building and testing without ASLR (setarch -R)"
  run=(setarch "$(uname -m)" -R)
fi
CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DGEON_TSAN=ON -DGEON_CUDA=OFF \
  -DGEON_BUILD_BENCH=OFF -DGEON_ASAN_TESTS=OFF ${GEON_TSAN_CMAKE_ARGS:-}
"${run[@]}" cmake --build "$build" -j "${GEON_JOBS:-2}" --target geon_provider \
  geon_provider_tests geon_core_tests

# halt_on_error=0: every race of a test is listed before its process exits with 66 (ctest then
# fails it). tests/stress/tsan.supp holds the uninstrumented third-party code only.
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=0:exitcode=66:second_deadlock_stack=1:suppressions=$PWD/tests/stress/tsan.supp}
tests='ProviderConcurrency|ProviderReleaseRace|ProviderHandles|ProviderSession.IntraOpThreads'
tests+='|ExecutorThreads|ExecutorMemory.Concurrent|EngineScopedPool'
"${run[@]}" ctest --test-dir "$build" --output-on-failure -j "${GEON_JOBS:-2}" -R "$tests" "$@"
