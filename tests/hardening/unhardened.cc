// The hardening test's negative control: a program built with every hardening flag turned off,
// which tests/hardening/elf_hardening.py must reject on each of its checks. Its code gives each
// flag something to act on (a local char array for the stack protector, snprintf and memcpy
// into it with sizes the compiler knows for _FORTIFY_SOURCE), so only the flags differ.
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  char line[64];
  std::snprintf(line, sizeof line, "%d arguments", argc);
  char copy[64];
  std::memcpy(copy, argv[0], std::strlen(argv[0]) % sizeof copy);
  std::puts(line);
  return copy[0] == 0;
}
