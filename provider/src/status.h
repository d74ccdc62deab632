// Errors at the C ABI: the GeonStatus object, the provider's own error type (for codes that
// geon::Error has no word for, such as "not found"), and the guard that turns any exception
// into a status so that none crosses the boundary.
#pragma once

#include <stdexcept>
#include <string>

#include "geon/geon.h"

struct GeonStatus {
  GeonErrorCode code;
  std::string message;
};

namespace geon::provider {

// Thrown inside the provider when the C code is known exactly.
class ApiError : public std::runtime_error {
 public:
  ApiError(GeonErrorCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  GeonErrorCode code() const { return code_; }

 private:
  GeonErrorCode code_;
};

[[noreturn]] inline void api_fail(GeonErrorCode code, const std::string& what) {
  throw ApiError(code, what);
}

// A null pointer argument is the caller's mistake: say which argument.
inline void require_arg(const void* p, const char* name) {
  if (!p) api_fail(GEON_INVALID_ARGUMENT, std::string("argument '") + name + "' is null");
}

// What a failing call was doing: while reading a model, geon's "invalid argument" means the
// model is malformed.
enum class Stage { kCall, kModel };

// A new status (never null: when even that allocation fails, a static out-of-memory status).
GeonStatus* make_status(GeonErrorCode code, std::string message) noexcept;
// The status for the exception being handled; call only inside a catch block.
GeonStatus* status_from_current_exception(const char* function, Stage stage) noexcept;

GeonErrorCode status_code(const GeonStatus* s) noexcept;
const char* status_message(const GeonStatus* s) noexcept;
void release_status(GeonStatus* s) noexcept;

// Runs f; an exception becomes a status whose message starts with the function's name.
template <typename F>
GeonStatus* guard(const char* function, Stage stage, F&& f) noexcept {
  try {
    f();
    return nullptr;
  } catch (...) {
    return status_from_current_exception(function, stage);
  }
}
template <typename F>
GeonStatus* guard(const char* function, F&& f) noexcept {
  return guard(function, Stage::kCall, static_cast<F&&>(f));
}

}  // namespace geon::provider
