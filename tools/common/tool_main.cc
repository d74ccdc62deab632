#include "tools/common/tool_main.h"

#include <exception>
#include <iostream>

namespace geon::tools {

int tool_main(const char* name, int argc, char** argv, ToolBody body, int error_status) {
  try {
    return body(argc, argv);
  } catch (const std::exception& e) {
    std::cout.flush();  // stdout first, so the error comes after what was printed
    std::cerr << name << ": error: " << e.what() << "\n";
  }
  return error_status;
}

}  // namespace geon::tools
