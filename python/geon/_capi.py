"""ctypes declarations of provider/include/geon/geon.h, and loading libgeon_provider.so.

GeonApi's fields mirror the header's struct member by member, in order: the table is
append-only, so this list may only grow at its end (tests/python checks it against the header).
The library is found through set_library_path(), else the GEON_PROVIDER environment variable,
else the copy installed inside the package (geon/lib/libgeon_provider.so, put there by the wheel).
"""

import ctypes
import os
import threading

from ctypes import POINTER, c_char_p, c_int, c_int32, c_int64, c_size_t, c_uint32, c_uint64, c_void_p

API_VERSION = 4

# The error codes and classes live in _errors; they are re-exported here for the modules that
# have always found them in _capi.
from ._errors import (  # noqa: E402
    CODE_NAMES,
    INTERNAL,
    INVALID_ARGUMENT,
    INVALID_MODEL,
    NOT_FOUND,
    OK,
    RESOURCE_EXHAUSTED,
    UNSUPPORTED,
    VERSION_MISMATCH,
    CALL,
    CREATE,
    RUN,
    EPFail,
    GeonError,
)
from . import _errors  # noqa: E402


class GeonString(ctypes.Structure):
    """One element of a string tensor: UTF-8 bytes, not NUL-terminated (geon.h)."""

    _fields_ = [
        ("data", c_void_p),
        ("size", c_uint64),
    ]


class GeonTensor(ctypes.Structure):
    _fields_ = [
        ("dtype", c_int32),
        ("rank", c_int32),
        ("shape", POINTER(c_int64)),
        ("data", c_void_p),
        ("bytes", c_uint64),
    ]


class GeonValue(ctypes.Structure):
    """A sequence, optional or map value (GEON_VALUE_TENSOR, _SEQUENCE, _NONE, _MAP or
    _MAP_SEQUENCE, and its tensors)."""

    _fields_ = [
        ("kind", c_int32),
        ("count", ctypes.c_uint64),
        ("tensors", POINTER(GeonTensor)),
    ]


VALUE_TENSOR, VALUE_SEQUENCE, VALUE_NONE, VALUE_MAP, VALUE_MAP_SEQUENCE = 0, 1, 2, 3, 4


class GeonValueInfo(ctypes.Structure):
    _fields_ = [
        ("name", c_char_p),
        ("dtype", c_int32),
        ("rank", c_int32),
        ("dims", POINTER(c_int64)),
        ("dim_names", POINTER(c_char_p)),
    ]


# Handles (GeonStatus*, GeonSession*, ...) are opaque: c_void_p. Owned strings come back through
# char** as c_void_p so that they can be handed to release_string unchanged.
_F = ctypes.CFUNCTYPE
_status = c_void_p
_handle = c_void_p
_out = POINTER(c_void_p)

_API_FIELDS = [
    ("version", c_uint32),
    ("library_version", _F(c_char_p)),
    # status
    ("status_code", _F(c_int, _status)),
    ("status_message", _F(c_char_p, _status)),
    ("release_status", _F(None, _status)),
    ("release_string", _F(None, c_void_p)),
    # options
    ("create_options", _F(_status, _out)),
    ("set_option", _F(_status, _handle, c_char_p, c_char_p)),
    ("release_options", _F(None, _handle)),
    # sessions
    ("create_session", _F(_status, c_char_p, _handle, _out)),
    ("create_session_from_bytes", _F(_status, c_void_p, c_size_t, c_char_p, _handle, _out)),
    ("release_session", _F(None, _handle)),
    ("session_input_count", _F(c_size_t, _handle)),
    ("session_output_count", _F(c_size_t, _handle)),
    ("session_input_info", _F(_status, _handle, c_size_t, POINTER(GeonValueInfo))),
    ("session_output_info", _F(_status, _handle, c_size_t, POINTER(GeonValueInfo))),
    (
        "run",
        _F(
            _status,
            _handle,
            POINTER(c_char_p),
            POINTER(GeonTensor),
            c_size_t,
            POINTER(c_char_p),
            c_size_t,
            POINTER(GeonTensor),
            _out,
        ),
    ),
    ("result_count", _F(c_size_t, _handle)),
    ("result_tensor", _F(_status, _handle, c_size_t, POINTER(GeonTensor))),
    ("result_name", _F(c_char_p, _handle, c_size_t)),
    ("release_result", _F(None, _handle)),
    ("placement_report", _F(_status, _handle, _out)),
    ("end_profiling", _F(_status, _handle, _out)),
    ("session_graph_dump", _F(_status, _handle, _out)),
    # the provider contract
    ("load_model", _F(_status, c_char_p, _out)),
    ("load_model_from_bytes", _F(_status, c_void_p, c_size_t, c_char_p, _out)),
    ("release_model", _F(None, _handle)),
    ("model_node_count", _F(c_size_t, _handle)),
    ("model_node_name", _F(c_char_p, _handle, c_size_t)),
    ("model_node_op", _F(c_char_p, _handle, c_size_t)),
    ("get_capability", _F(_status, _handle, _handle, _out)),
    ("release_capability", _F(None, _handle)),
    ("capability_subgraph_count", _F(c_size_t, _handle)),
    ("capability_subgraph_set", _F(c_char_p, _handle, c_size_t)),
    ("capability_subgraph_node_count", _F(c_size_t, _handle, c_size_t)),
    ("capability_subgraph_node", _F(c_size_t, _handle, c_size_t, c_size_t)),
    ("capability_node_subgraph", _F(c_int64, _handle, c_size_t)),
    ("capability_node_reason", _F(c_char_p, _handle, c_size_t)),
    ("compile", _F(_status, _handle, _handle, c_size_t, _handle, _out)),
    # appended after the first release of version 1
    ("session_input_has_default", _F(c_int, _handle, c_size_t)),
    # version 2
    ("session_model_metadata", _F(_status, _handle, _out)),
    # version 3: sequences and optionals
    ("session_input_type", _F(_status, _handle, c_size_t, _out)),
    ("session_output_type", _F(_status, _handle, c_size_t, _out)),
    (
        "run_values",
        _F(_status, _handle, POINTER(c_char_p), POINTER(GeonValue), c_size_t, POINTER(c_char_p), c_size_t, _out),
    ),
    ("result_value", _F(_status, _handle, c_size_t, POINTER(GeonValue))),
]


class GeonApi(ctypes.Structure):
    _fields_ = _API_FIELDS


_lock = threading.Lock()
_explicit_path = None
_loaded = None  # (path, CDLL, GeonApi) once loaded


def set_library_path(path):
    """Uses libgeon_provider.so at `path` (takes precedence over GEON_PROVIDER). Must be called
    before the first session: a process keeps the library it loaded first."""
    global _explicit_path
    path = os.fspath(path)
    with _lock:
        if _loaded is not None and os.path.realpath(_loaded[0]) != os.path.realpath(path):
            raise GeonError(
                "geon already loaded %s; set_library_path(%r) must come before the first session"
                % (_loaded[0], path),
                INVALID_ARGUMENT,
            )
        _explicit_path = path


# Where `pip install .` puts the library: inside the package, beside this file.
_PACKAGED_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib", "libgeon_provider.so")


def library_path():
    """The path that is (or will be) loaded: set_library_path's, else GEON_PROVIDER's, else the
    library installed inside the package; None when there is none of these."""
    if _loaded is not None:
        return _loaded[0]
    named = _explicit_path or os.environ.get("GEON_PROVIDER")
    if named:
        return named
    return _PACKAGED_PATH if os.path.isfile(_PACKAGED_PATH) else None


def api():
    """The loaded GeonApi table, loading the library on first use."""
    global _loaded
    if _loaded is not None:
        return _loaded[2]
    with _lock:
        if _loaded is None:
            _loaded = _load(library_path())
    return _loaded[2]


def _load(path):
    if not path:
        raise EPFail(
            "libgeon_provider.so is not located: this geon package has none inside it (install it "
            "with `pip install .` from the repository root), and neither GEON_PROVIDER (for example "
            "build/provider/libgeon_provider.so) nor geon.set_library_path(path) names one",
            NOT_FOUND,
        )
    if not os.path.isfile(path):
        raise EPFail(
            "libgeon_provider.so not found at %r (from %s)"
            % (path, "set_library_path" if _explicit_path else "GEON_PROVIDER"),
            NOT_FOUND,
        )
    try:
        lib = ctypes.CDLL(os.path.abspath(path), mode=os.RTLD_LOCAL | os.RTLD_NOW)
    except OSError as e:
        raise EPFail("cannot load %s: %s" % (path, e), NOT_FOUND) from None
    try:
        get_api = lib.geon_get_api
    except AttributeError:
        raise EPFail("%s does not export geon_get_api: not a geon provider" % path, NOT_FOUND) from None
    get_api.restype = POINTER(GeonApi)
    get_api.argtypes = [c_uint32, POINTER(c_char_p)]
    refusal = c_char_p()
    table = get_api(API_VERSION, ctypes.byref(refusal))
    if not table:
        why = refusal.value.decode("utf-8", "replace") if refusal.value else "no reason given"
        raise EPFail("%s refused C API version %d: %s" % (path, API_VERSION, why), VERSION_MISMATCH)
    table = table.contents
    if table.version < API_VERSION:
        raise EPFail(
            "%s has C API version %d, older than the %d this package needs"
            % (path, table.version, API_VERSION),
            VERSION_MISMATCH,
        )
    return (path, lib, table)


def check(status, stage=CALL):
    """Raises the GeonError subclass for a non-NULL GeonStatus* (and frees it), as the code
    means while doing `stage` (CALL, CREATE or RUN); returns None for success."""
    if not status:
        return
    table = api()
    code = table.status_code(status)
    message = table.status_message(status)
    table.release_status(status)
    raise _errors.make(message.decode("utf-8", "replace") if message else "(no message)", code, stage)


def take_string(pointer):
    """The text of a caller-owned char* from the library, freed after reading."""
    if not pointer:
        return ""
    try:
        return ctypes.string_at(pointer).decode("utf-8", "replace")
    finally:
        api().release_string(pointer)


def text(value):
    """A `const char*` accessor's bytes as str ("" for NULL)."""
    return value.decode("utf-8", "replace") if value else ""
