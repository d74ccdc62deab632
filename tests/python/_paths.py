"""Shared by the Python tests: the repository root, and geon importable from python/ when it is
not installed (ctest sets PYTHONPATH; this covers running a test file by hand)."""

import os
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

try:
    import geon  # noqa: F401
except ImportError:
    sys.path.insert(0, os.path.join(REPO, "python"))
