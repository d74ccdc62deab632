// The one exception type of geon's C++ core. Everything below the C ABI throws geon::Error; the
// provider turns it into a status object, so no exception ever crosses the ABI.
#pragma once

#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace geon {

enum class ErrorCode {
  kInvalidArgument = 1,  // the caller passed something malformed
  kNotSupported = 2,     // well-formed, but geon has no rule or kernel for it
  kOutOfRange = 3,       // an index, size or byte range outside what is allowed
  kResourceExhausted = 4,
  kDeviceUnavailable = 5,
  kInternal = 6,
};

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

[[noreturn]] inline void fail(ErrorCode code, const std::string& what) { throw Error(code, what); }

// Checks an argument condition; the message says what was expected, for the user to read.
inline void require(bool ok, const std::string& what) {
  if (!ok) fail(ErrorCode::kInvalidArgument, what);
}
// A literal message costs nothing unless the check fails (no std::string is built per call).
inline void require(bool ok, const char* what) {
  if (!ok) fail(ErrorCode::kInvalidArgument, what);
}

// A message built from values (names, shapes) on a path that runs per node: `what()` makes the
// text only when the check fails, so a passing check costs no allocation.
template <typename What>
requires std::is_invocable_r_v<std::string, What>
inline void require(bool ok, What&& what) {
  if (!ok) fail(ErrorCode::kInvalidArgument, std::forward<What>(what)());
}

// Runs f() and returns what it returns; a std::bad_alloc escaping it becomes a kResourceExhausted
// Error "out of memory while <what()>", so that the status names what could not be allocated.
// `what` is called only then (its text costs nothing otherwise). geon::Errors pass through: a
// context added further in is the more precise one.
template <typename What, typename F>
decltype(auto) out_of_memory_context(What&& what, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const std::bad_alloc&) {
    fail(ErrorCode::kResourceExhausted, "out of memory while " + std::string(what()));
  }
}

}  // namespace geon
