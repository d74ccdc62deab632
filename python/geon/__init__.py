"""geon: run ONNX models on the geon execution provider from Python.

A pure-Python (ctypes) layer over the C ABI of libgeon_provider.so, which is found through the
GEON_PROVIDER environment variable or geon.set_library_path(). geon.backend (the ONNX backend
interface) is imported on first use, since it needs the onnx package.
"""

import importlib

from ._capi import GeonError, set_library_path, library_path
from .contract import Capability, Model, Subgraph
from .options import SessionOptions
from .session import InferenceSession, NodeArg

__version__ = "0.1.0"

__all__ = [
    "Capability",
    "GeonError",
    "InferenceSession",
    "Model",
    "NodeArg",
    "SessionOptions",
    "Subgraph",
    "get_library_version",
    "library_path",
    "set_library_path",
]


def get_library_version():
    """The loaded library's version string (with the kernel sets compiled in)."""
    from . import _capi

    return _capi.text(_capi.api().library_version())


def __getattr__(name):
    if name == "backend":
        return importlib.import_module(".backend", __name__)
    raise AttributeError("module 'geon' has no attribute %r" % name)
