// What the fuzz targets share: the provider's C API, session options capped so that a
// legitimate but huge model cannot exhaust the machine, a private base directory for external
// data, and one run of a session with inputs derived deterministically from a seed.
#pragma once

#include <geon/geon.h>

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

namespace geon::fuzz {

// The provider's function table (aborts when the library refuses our header's version).
const GeonApi& api();

// Options every target uses: arena_limit_bytes 64 MiB and one engine thread (a fuzzed model
// that asks for more memory than that fails its run with a status instead of an OOM report).
const GeonOptions* capped_options();

// The work directory, made once per process: <work>/base is the base_dir passed for models
// given as bytes (it holds the committed external-data file, a small pattern file and a
// symlink pointing outside), <work>/outside.bin lies outside it. GEON_FUZZ_WORKDIR picks
// <work>; otherwise a fresh directory under $TMPDIR.
const std::string& work_dir();
const std::string& base_dir();

// Inputs above this many elements are not built (the run is skipped).
inline constexpr int64_t kMaxInputElements = int64_t{1} << 20;

// Bytes of n elements of an ONNX dtype (sub-byte types packed), or -1 for strings and types
// the C ABI cannot carry.
int64_t dtype_bytes(int32_t dtype, int64_t n);

// Creates a session from model bytes under capped_options() and base_dir(); returns null when
// creation fails (a failure status is an expected outcome, not a finding).
GeonSession* create_session(const void* bytes, size_t size);

// Runs s once, feeding every input that has no default: dims of -1 become 1 to 3, a shape of
// unknown rank becomes [2], values come from a generator seeded with `seed` (bools are 0 or 1;
// the inputs named in `small_inputs`, Loop trip counts, get values 0 to 16).
// Skips the run when an input would exceed kMaxInputElements or is a string tensor. Reads
// every output byte, so that a result pointing at freed or short memory is reported.
void run_with_seeded_inputs(GeonSession* s, uint64_t seed,
                            const std::set<std::string>& small_inputs);

// Reads every output of a result (a checksum the compiler cannot drop) and releases it.
void consume_result(GeonResult* r);

// Releases a status, returning whether there was one (a failure). GEON_FUZZ_VERBOSE prints it.
bool failed(GeonStatus* st);

// Outcome counters, printed at exit when GEON_FUZZ_STATS is set (how deep inputs get).
enum class Event { kInput, kSession, kRun, kRunOk, kSkippedLoop, kSkippedSize, kCount };
void count(Event e);

// FNV-1a over bytes: the seed derived from a fuzz input.
uint64_t hash_bytes(const void* data, size_t size);

}  // namespace geon::fuzz
