// Running Graphviz's `dot` to turn DOT text into a picture (SVG, PNG...), as a child process
// without a shell, so file names need no quoting.
#pragma once

#include <string>

namespace geon::tools {

// Where `dot` is: $GEON_DOT when set, else the first `dot` on $PATH; "" when there is none.
std::string find_dot();

// Writes `dot_text` rendered as `format` ("svg", "png") to `path`; ToolError naming the missing
// program (and how to get it) or dot's exit status.
void render_dot(const std::string& dot_text, const std::string& format, const std::string& path);

}  // namespace geon::tools
