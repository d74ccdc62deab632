#!/usr/bin/env python3
"""Configures and builds examples/ against an installed geon only, and checks that nothing of
the build went back to geon's build or source tree (the CMake package and pkg-config file
included).

Usage: build_examples.py PREFIX EXAMPLES_DIR EXAMPLES_BUILD_DIR GEON_BUILD_DIR GEON_SOURCE_DIR
"""
import glob
import os
import shutil
import subprocess
import sys

import packaging_env


def main():
    prefix, examples, out, geon_build, geon_source = (os.path.realpath(a) for a in sys.argv[1:6])
    env = packaging_env.clean_env()

    # The installed package files must not name the build or source tree.
    package_files = glob.glob(os.path.join(prefix, "lib*", "**", "geon*"), recursive=True)
    assert any(f.endswith("geonConfig.cmake") for f in package_files), package_files
    assert any(f.endswith("geon.pc") for f in package_files), package_files
    for f in package_files:
        if os.path.isfile(f) and not f.endswith((".so", ".a")) and ".so." not in f:
            packaging_env.expect_no_tree_paths(f, geon_build, geon_source)

    shutil.rmtree(out, ignore_errors=True)
    warnings = "-Wall -Wextra -Werror"
    subprocess.run(["cmake", "-S", examples, "-B", out, "-G", "Ninja", "-DCMAKE_PREFIX_PATH=" + prefix,
                    "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF", "-DCMAKE_C_FLAGS=" + warnings,
                    "-DCMAKE_CXX_FLAGS=" + warnings], check=True, env=env)
    subprocess.run(["cmake", "--build", out], check=True, env=env)

    # find_package found the prefix's package, and the build files name only the prefix.
    cache = open(os.path.join(out, "CMakeCache.txt")).read()
    geon_dir = [l.split("=", 1)[1] for l in cache.splitlines() if l.startswith("geon_DIR:")]
    assert geon_dir and os.path.realpath(geon_dir[0]).startswith(prefix + os.sep), geon_dir
    for f in ("CMakeCache.txt", "build.ninja"):
        packaging_env.expect_no_tree_paths(os.path.join(out, f), geon_build, geon_source)
    print("examples built against %s only (geon_DIR=%s)" % (prefix, geon_dir[0]))


if __name__ == "__main__":
    main()
