"""Shared by the packaging tests: an environment that points at no geon build, and the check
that a file names neither geon's build tree nor its provider sources."""
import os

# Variables through which a build or a run could find geon somewhere other than the prefix.
_LEAKY = ("GEON_PROVIDER", "LD_LIBRARY_PATH", "CMAKE_PREFIX_PATH", "geon_DIR", "PKG_CONFIG_PATH",
          "PYTHONPATH", "CPATH", "LIBRARY_PATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH")


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in _LEAKY}
    env.update(extra)
    return env


def expect_no_tree_paths(path, geon_build, geon_source):
    """The build tree's provider and tools, and the source tree's headers, must not appear."""
    text = open(path, errors="replace").read()
    for bad in (os.path.join(geon_build, "provider"), os.path.join(geon_build, "tools"),
                os.path.join(geon_source, "provider")):
        assert bad not in text, "%s names %s" % (path, bad)
