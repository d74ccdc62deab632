// The tools' main(): whatever escapes a tool's body becomes one line on stderr, after what the
// tool already printed, and a failing exit status, so no tool ends on an uncaught exception.
#pragma once

namespace geon::tools {

using ToolBody = int (*)(int argc, char** argv);

// body(argc, argv)'s status; when it throws, "NAME: error: WHAT" on stderr (stdout flushed
// first) and `error_status`.
int tool_main(const char* name, int argc, char** argv, ToolBody body, int error_status);

}  // namespace geon::tools
