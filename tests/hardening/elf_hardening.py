"""Checks that built ELF files carry Debian's hardening (dpkg-buildflags hardening=+all), read
back from the files themselves with binutils' readelf, the way Debian's hardening-check and
lintian look at a package's binaries.

usage: elf_hardening.py [--expect-unhardened] [--skip CHECK[@FILENAME]]... lib:PATH | exe:PATH ...
  lib: a shared library; exe: an executable, which must also be PIE.
Checks, each by name:
  relro        a PT_GNU_RELRO segment (-z relro)
  bind_now     DT_FLAGS BIND_NOW or DT_FLAGS_1 NOW (-z now; with relro, "full RELRO")
  noexecstack  a PT_GNU_STACK segment without the execute flag (-z noexecstack)
  pie          (exe only) ET_DYN with DT_FLAGS_1 PIE (-fPIE -pie)
  stack_protector  an undefined reference to __stack_chk_fail (-fstack-protector-strong)
  fortify      an undefined reference to a glibc checked function __*_chk other than
               __stack_chk_fail, e.g. __memcpy_chk, __snprintf_chk (-D_FORTIFY_SOURCE=2)
With --expect-unhardened every check must fail on every file instead (the negative control:
a binary built without the flags proves that each check can tell). --skip CHECK leaves one
check out, for every file or for the one file named (fortify in builds that do not define
_FORTIFY_SOURCE: Debug, sanitizers; or for a file that makes no call FORTIFY can check).
"""

import os
import re
import subprocess
import sys


def readelf(*args):
    return subprocess.run(["readelf", "-W", *args], check=True, capture_output=True,
                          text=True).stdout


def segments(path):
    """{segment type: flags string} from the program headers, e.g. {'GNU_STACK': 'RW'}."""
    found = {}
    for line in readelf("--program-headers", path).splitlines():
        parts = line.split()
        # Type Offset VirtAddr PhysAddr FileSiz MemSiz Flg... Align: the flags are the columns
        # between MemSiz and Align (e.g. "R E" is two columns).
        if len(parts) >= 8 and parts[1].startswith("0x") and not parts[0].startswith("["):
            found[parts[0]] = "".join(parts[6:-1])
    return found


def dynamic_flags(path):
    """The words of DT_FLAGS and DT_FLAGS_1, e.g. {'BIND_NOW', 'NOW', 'PIE'}."""
    words = set()
    for line in readelf("--dynamic", path).splitlines():
        match = re.search(r"\((FLAGS|FLAGS_1)\)\s+(?:Flags:)?\s*(.*)$", line)
        if match:
            words.update(match.group(2).split())
    return words


def elf_type(path):
    match = re.search(r"^\s*Type:\s+(\S+)", readelf("--file-header", path), re.M)
    return match.group(1) if match else "?"


def undefined_dynamic_symbols(path):
    """Names the file imports (UND in .dynsym), without version suffixes."""
    names = set()
    for line in readelf("--dyn-syms", path).splitlines():
        parts = line.split()
        if len(parts) >= 8 and parts[6] == "UND":
            names.add(parts[7].split("@")[0])
    return names


def checks(kind, path):
    """{check name: (passed, what was seen)} for one file."""
    segs = segments(path)
    flags = dynamic_flags(path)
    imports = undefined_dynamic_symbols(path)
    fortified = sorted(n for n in imports
                       if re.fullmatch(r"__\w+_chk", n) and n != "__stack_chk_fail")
    result = {
        "relro": ("GNU_RELRO" in segs, f"segments {sorted(segs)}"),
        "bind_now": ("BIND_NOW" in flags or "NOW" in flags, f"dynamic flags {sorted(flags)}"),
        "noexecstack": ("GNU_STACK" in segs and "E" not in segs["GNU_STACK"],
                        f"GNU_STACK flags {segs.get('GNU_STACK', 'absent')}"),
        "stack_protector": ("__stack_chk_fail" in imports, "imports __stack_chk_fail"
                            if "__stack_chk_fail" in imports else "no __stack_chk_fail"),
        "fortify": (bool(fortified), f"checked functions {fortified}"),
    }
    if kind == "exe":
        result["pie"] = (elf_type(path) == "DYN" and "PIE" in flags,
                         f"type {elf_type(path)}, dynamic flags {sorted(flags)}")
    return result


def main(argv):
    expect_hardened = True
    skipped = set()
    while argv and argv[0].startswith("--"):
        if argv[0] == "--expect-unhardened":
            expect_hardened = False
            argv = argv[1:]
        elif argv[0] == "--skip" and len(argv) > 1:
            skipped.add(argv[1])
            argv = argv[2:]
        else:
            sys.exit(__doc__)
    if not argv:
        sys.exit(__doc__)
    failures = 0
    for arg in argv:
        kind, _, path = arg.partition(":")
        if kind not in ("lib", "exe") or not path:
            sys.exit(f"bad argument {arg!r}: expected lib:PATH or exe:PATH")
        for name, (passed, seen) in checks(kind, path).items():
            if name in skipped or f"{name}@{os.path.basename(path)}" in skipped:
                print(f"skip {name:15} {path}: left out (--skip)")
                continue
            ok = passed == expect_hardened
            failures += not ok
            verdict = "ok" if ok else "FAIL"
            print(f"{verdict:4} {name:15} {path}: {seen}")
    if failures:
        want = "hardened" if expect_hardened else "unhardened (negative control)"
        sys.exit(f"{failures} check(s) did not find the files {want}")
    print("hardening ok" if expect_hardened else "negative control ok: every check tells")


if __name__ == "__main__":
    main(sys.argv[1:])
