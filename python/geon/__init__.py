"""geon: run ONNX models on the geon execution provider from Python, with onnxruntime's API.

A pure-Python (ctypes) layer over the C ABI of libgeon_provider.so, which is found through
geon.set_library_path(), the GEON_PROVIDER environment variable, or the copy installed inside
the package. A script written for onnxruntime runs unchanged with `import geon as ort`: the
names below (InferenceSession, SessionOptions, RunOptions, OrtValue, the exception classes in
geon.capi.onnxruntime_pybind11_state, ...) mean what onnxruntime's mean. geon.backend (the
ONNX backend interface) is imported on first use, since it needs the onnx package.
"""

import importlib

from ._capi import set_library_path, library_path
from ._errors import (
    EngineError,
    EPFail,
    Fail,
    GeonError,
    InvalidArgument,
    InvalidGraph,
    InvalidProtobuf,
    ModelLoaded,
    NoModel,
    NoSuchFile,
    NotImplemented,
    RuntimeException,
)
from ._providers import get_all_providers, get_available_providers
from .contract import Capability, Model, Subgraph
from .io_binding import IOBinding, OrtValue
from .options import (
    ExecutionMode,
    GraphOptimizationLevel,
    RunOptions,
    SessionOptions,
    set_default_logger_severity,
)
from .session import InferenceSession, ModelMetadata, NodeArg
from . import capi

__version__ = "0.1.0"

# onnxruntime's name for its binding class.
SessionIOBinding = IOBinding

__all__ = [
    "Capability",
    "EPFail",
    "EngineError",
    "ExecutionMode",
    "Fail",
    "GeonError",
    "GraphOptimizationLevel",
    "IOBinding",
    "InferenceSession",
    "InvalidArgument",
    "InvalidGraph",
    "InvalidProtobuf",
    "Model",
    "ModelLoaded",
    "ModelMetadata",
    "NoModel",
    "NoSuchFile",
    "NodeArg",
    "OrtValue",
    "RunOptions",
    "RuntimeException",
    "SessionOptions",
    "Subgraph",
    "get_all_providers",
    "get_available_providers",
    "get_device",
    "get_library_version",
    "get_version_string",
    "library_path",
    "set_default_logger_severity",
    "set_library_path",
]
# NotImplemented (onnxruntime's exception name) is geon.NotImplemented but stays out of __all__,
# so that `from geon import *` does not shadow the builtin constant.


def get_library_version():
    """The loaded library's version string (with the kernel sets compiled in)."""
    from . import _capi

    return _capi.text(_capi.api().library_version())


def get_version_string():
    """This package's version, as onnxruntime.get_version_string() gives onnxruntime's."""
    return __version__


def get_device():
    """"CPU", as onnxruntime's CPU build answers (CUDA is a provider choice per session)."""
    return "CPU"


def __getattr__(name):
    if name == "backend":
        return importlib.import_module(".backend", __name__)
    raise AttributeError("module 'geon' has no attribute %r" % name)
