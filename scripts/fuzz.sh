#!/usr/bin/env bash
# A fuzzing campaign over the libFuzzer targets of tests/fuzz: builds them in the sanitizer
# tree (configured as scripts/sanitize.sh does, when missing), generates the seed corpora, then
# runs each target in turn, niced, one process at a time, for --seconds N. A run that stops on
# a finding is restarted for the time left; its input is kept in <build>/fuzz/artifacts/.
# Prints per target: executions, coverage (cov: edges, ft: features, from libFuzzer's final
# stats), corpus size and findings.
# Usage: scripts/fuzz.sh [--seconds N] [--until HH:MM] [--build DIR] [target...]
#        (targets: model_bytes, model_structure, run_inputs; default all, in that order;
#        --until cuts every run short at that time, whatever --seconds says)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60
until=
build=${GEON_ASAN_BUILD_DIR:-build-asan}
targets=()
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --until) until=$(date -d "$2" +%s); shift 2 ;;
    --build) build=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) targets+=("geon_fuzz_${1#geon_fuzz_}"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(geon_fuzz_model_bytes geon_fuzz_model_structure geon_fuzz_run_inputs)
lock=${GEON_BUILD_LOCK:-/tmp/geon-build.lock}

if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang-14 CXX=clang++-14 flock "$lock" cmake -S . -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    -DGEON_SANITIZE=ON -DGEON_FUZZ=ON -DGEON_CUDA=OFF -DGEON_BUILD_BENCH=OFF -DGEON_ASAN_TESTS=OFF
fi
flock "$lock" nice cmake --build "$build" -j "${GEON_JOBS:-2}" --target "${targets[@]}"

fuzz=$build/fuzz
list=$build/tests/fuzz/run_inputs_models.txt
python3 tests/fuzz/make_corpus.py --out "$fuzz/corpus" --source . --model-list "$list"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export GEON_FUZZ_MODEL_LIST=$list
limits=(-rss_limit_mb=4096 -malloc_limit_mb=2048 -timeout=30)

summary=()
for target in "${targets[@]}"; do
  short=${target#geon_fuzz_}
  artifacts=$fuzz/artifacts/$short
  logs=$fuzz/logs/$short
  mkdir -p "$artifacts" "$logs"
  export GEON_FUZZ_WORKDIR=$fuzz/work/$short
  before=$(find "$artifacts" -type f | wc -l)
  end=$(( $(date +%s) + seconds ))
  if [ -n "$until" ] && [ "$until" -lt "$end" ]; then end=$until; fi
  execs=0 cov=0 ft=0 runs=0
  while left=$(( end - $(date +%s) )); [ "$left" -gt 0 ]; do
    runs=$((runs + 1))
    log=$logs/$(date +%Y%m%dT%H%M%S)-$runs.log
    started=$(date +%s)
    nice -n 19 "$build/tests/fuzz/$target" -max_total_time="$left" "${limits[@]}" \
      -print_final_stats=1 -artifact_prefix="$artifacts/" "$fuzz/corpus/$target" >"$log" 2>&1 || true
    # Executions add up over restarts; coverage is the last run's (it starts from the corpus).
    e=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    execs=$((execs + ${e:-0}))
    last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1 || true)
    c=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    f=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    cov=${c:-$cov} ft=${f:-$ft}
    grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|SUMMARY: ' "$log" &&
      echo "$target: finding, log $log" >&2
    # A run that stops within seconds stops on its seed corpus: restarting would only repeat it.
    if [ $(( $(date +%s) - started )) -lt 10 ] && [ "$left" -gt 10 ]; then
      echo "$target: stopped after ${runs} runs (the corpus itself fails; see $log)" >&2
      break
    fi
  done
  found=$(( $(find "$artifacts" -type f | wc -l) - before ))
  corpus=$(find "$fuzz/corpus/$target" -type f | wc -l)
  line="$target: executions $execs, cov $cov, ft $ft, corpus $corpus, findings $found (runs $runs)"
  echo "$line"
  summary+=("$line")
done
echo "--- fuzz campaign, $seconds s per target ---"
printf '%s\n' "${summary[@]}"
