"""onnxruntime.capi.onnxruntime_pybind11_state's names, as geon's classes: the exception
classes (Fail, InvalidArgument, ...) and the API types, for code that imports them from here.
Absolute imports, so that the classes are geon's whatever name this module is loaded under.
"""

from geon._errors import (  # noqa: F401
    EngineError,
    EPFail,
    Fail,
    InvalidArgument,
    InvalidGraph,
    InvalidProtobuf,
    ModelLoaded,
    NoModel,
    NoSuchFile,
    NotImplemented,
    RuntimeException,
)
from geon.io_binding import IOBinding as SessionIOBinding, OrtValue  # noqa: F401
from geon.options import ExecutionMode, GraphOptimizationLevel, RunOptions, SessionOptions  # noqa: F401
from geon.session import InferenceSession, ModelMetadata, NodeArg  # noqa: F401
from geon._providers import get_available_providers  # noqa: F401
