// Status objects and the mapping from geon's C++ error codes to the C ABI's.
#include "provider/src/status.h"

#include <new>

#include "core/base/error.h"

namespace geon::provider {
namespace {

// Returned when a status cannot be allocated; release_status knows not to free it.
GeonStatus* out_of_memory_status() noexcept {
  static GeonStatus s{GEON_RESOURCE_EXHAUSTED, "out of memory while reporting an error"};
  return &s;
}

GeonErrorCode map_code(ErrorCode c, Stage stage) {
  switch (c) {
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kOutOfRange:
      return stage == Stage::kModel ? GEON_INVALID_MODEL : GEON_INVALID_ARGUMENT;
    case ErrorCode::kNotSupported:
    case ErrorCode::kDeviceUnavailable:
      return GEON_UNSUPPORTED;
    case ErrorCode::kResourceExhausted:
      return GEON_RESOURCE_EXHAUSTED;
    case ErrorCode::kInternal:
      return GEON_INTERNAL;
  }
  return GEON_INTERNAL;
}

}  // namespace

GeonStatus* make_status(GeonErrorCode code, std::string message) noexcept {
  try {
    return new GeonStatus{code, std::move(message)};
  } catch (...) {
    return out_of_memory_status();
  }
}

GeonStatus* status_from_current_exception(const char* function, Stage stage) noexcept {
  try {
    const std::string prefix = std::string(function) + ": ";
    try {
      throw;
    } catch (const ApiError& e) {
      return make_status(e.code(), prefix + e.what());
    } catch (const Error& e) {
      return make_status(map_code(e.code(), stage), prefix + e.what());
    } catch (const std::bad_alloc&) {
      return make_status(GEON_RESOURCE_EXHAUSTED, prefix + "out of memory");
    } catch (const std::exception& e) {
      return make_status(GEON_INTERNAL, prefix + "internal error: " + e.what());
    } catch (...) {
      return make_status(GEON_INTERNAL, prefix + "internal error: unknown exception");
    }
  } catch (...) {
    return out_of_memory_status();
  }
}

GeonErrorCode status_code(const GeonStatus* s) noexcept { return s ? s->code : GEON_OK; }

const char* status_message(const GeonStatus* s) noexcept { return s ? s->message.c_str() : ""; }

void release_status(GeonStatus* s) noexcept {
  if (s != out_of_memory_status()) delete s;
}

}  // namespace geon::provider
