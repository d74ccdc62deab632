// Robustness: every model of the ONNX backend test data (both copies), cut short, with bytes
// changed at seeded random places, and with fields changed through the protobuf classes
// (proto_mutator.h: these get past the parser to the import rules), is imported from bytes. Each
// import either succeeds or throws geon::Error; any other exception, an internal error, a crash, a
// sanitizer report or a hang (a watchdog aborts after GEON_ROBUSTNESS_TIMEOUT seconds on one case)
// fails. CI runs it under AddressSanitizer and UBSan (geon_importer_asan_tests), where an
// allocation above 2 GiB aborts too, so "no unbounded allocation" is checked as well.
// GEON_ROBUSTNESS_PER_MODEL scales the mutations per model (default 6 of each kind) for longer
// local runs. To reproduce a case: GEON_ROBUSTNESS_ONLY=<substring of its name> runs only the
// cases that match, and GEON_ROBUSTNESS_SAVE=<dir> writes their bytes there as .onnx files.
// A crash or sanitizer report is followed by the name of the case that caused it.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>

#include "core/base/error.h"
#include "importer/import.h"
#include "tests/importer/backend_data.h"
#include "tests/importer/proto_mutator.h"
#include "tests/importer/robustness_support.h"

#if defined(__SANITIZE_ADDRESS__)
// Allocations above 2 GiB are bugs here (no test model needs them): make ASan abort on them
// instead of trying, and report leaks.
extern "C" const char* __asan_default_options() {
  return "max_allocation_size_mb=2048:allocator_may_return_null=0:detect_leaks=1";
}
// UBSan reports with a stack and aborts, so the case's name follows the report too.
extern "C" const char* __ubsan_default_options() { return "print_stacktrace=1:abort_on_error=1"; }
#endif

namespace geon {
namespace {

namespace fs = std::filesystem;
using namespace testing_robustness;

// One mutated copy of `model`: a truncation, or 1-4 byte edits of a kind that tends to reach
// the parser's and importer's edge cases (lengths and varints grown, tags changed).
std::string mutate(const std::string& model, std::mt19937_64& rng, int which) {
  std::string m = model;
  if (m.empty()) return m;
  auto pos = [&] { return std::uniform_int_distribution<size_t>(0, m.size() - 1)(rng); };
  if (which < 2) {  // truncation
    m.resize(pos());
    return m;
  }
  const int edits = std::uniform_int_distribution<int>(1, 4)(rng);
  for (int e = 0; e < edits; ++e) {
    const size_t p = pos();
    switch (std::uniform_int_distribution<int>(0, 4)(rng)) {
      case 0:  // random byte
        m[p] = static_cast<char>(rng());
        break;
      case 1:  // one bit
        m[p] = static_cast<char>(m[p] ^ (1 << (rng() % 8)));
        break;
      case 2:  // a big varint byte (continuation set): lengths and dims grow
        m[p] = static_cast<char>(0xff);
        break;
      case 3:  // zero
        m[p] = 0;
        break;
      default:  // a small value: often a field number or wire type change
        m[p] = static_cast<char>(rng() % 0x20);
    }
  }
  return m;
}

struct Tally {
  int cases = 0, imported = 0, refused = 0, unparsed = 0;
};

TEST(ImporterRobustness, MutatedBackendModelsImportOrFailWithGeonError) {
  const int per_model = env_int("GEON_ROBUSTNESS_PER_MODEL", 6);
  const char* only = std::getenv("GEON_ROBUSTNESS_ONLY");
  const char* save = std::getenv("GEON_ROBUSTNESS_SAVE");
  name_cases_on_crash();
  Watchdog watchdog(env_int("GEON_ROBUSTNESS_TIMEOUT", 60));
  const auto t0 = std::chrono::steady_clock::now();
  Tally all;
  int models = 0;
  for (const auto& set : testing_data::backend_data_sets()) {
    Tally tally;
    for (const fs::path& dir : testing_data::cases(set)) {
      std::ifstream in(dir / "model.onnx", std::ios::binary);
      const std::string original((std::istreambuf_iterator<char>(in)),
                                 std::istreambuf_iterator<char>());
      ++models;
      ImportOptions opt;
      opt.base_dir = dir.string();
      const std::string name = set.name + "/" + dir.filename().string();
      std::mt19937_64 rng(stable_hash(name));
      onnx::ModelProto parsed;
      const bool parses = parsed.ParseFromString(original);
      testing_protos::ProtoMutator fields(rng);
      // k = -1: the model as it is; then truncations and byte edits; then field mutations.
      for (int k = -1; k < 2 * per_model; ++k) {
        std::string bytes = original;
        if (k >= 0 && k < per_model) {
          bytes = mutate(original, rng, k % 6);
        } else if (k >= per_model) {
          if (!parses) continue;
          onnx::ModelProto m = parsed;
          fields.mutate(m);
          bytes.clear();
          m.SerializeToString(&bytes);
        }
        const std::string what = name + " case " + std::to_string(k);
        if (only && what.find(only) == std::string::npos) continue;
        if (save) {
          std::ofstream out(
              fs::path(save) / (set.name.substr(0, set.name.find('/')) + "_" +
                                dir.filename().string() + "_" + std::to_string(k) + ".onnx"),
              std::ios::binary);
          out << bytes;
        }
        ++tally.cases;
        set_current_case(what);
        watchdog.start(what);
        try {
          import_model_bytes(std::as_bytes(std::span(bytes.data(), bytes.size())), opt);
          ++tally.imported;
        } catch (const Error& e) {
          ++tally.refused;
          const std::string msg = e.what();
          if (msg.find("not an ONNX model") != std::string::npos) ++tally.unparsed;
          EXPECT_NE(e.code(), ErrorCode::kInternal) << what << ": " << msg;
          EXPECT_EQ(msg.find("out of memory"), std::string::npos) << what << ": " << msg;
        } catch (const std::exception& e) {
          ADD_FAILURE() << what << ": threw a non-geon exception: " << e.what();
        } catch (...) {
          ADD_FAILURE() << what << ": threw something that is not an exception";
        }
        watchdog.stop();
      }
    }
    std::printf(
        "robustness %-24s %6d cases: %6d imported, %6d refused with geon::Error (%d unparsable)\n",
        set.name.c_str(), tally.cases, tally.imported, tally.refused, tally.unparsed);
    all.cases += tally.cases;
    all.imported += tally.imported;
    all.refused += tally.refused;
    all.unparsed += tally.unparsed;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "robustness total: %d models, %d cases (%d imported, %d refused, %d of them unparsable) in "
      "%.1f s\n",
      models, all.cases, all.imported, all.refused, all.unparsed, secs);
  EXPECT_GT(models, 0) << "no backend test data found";
}

}  // namespace
}  // namespace geon
