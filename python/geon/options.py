"""SessionOptions and RunOptions with onnxruntime's attribute names, its GraphOptimizationLevel
and ExecutionMode enums, and the translation of options into the C ABI's option keys. Values
are checked when the session is created (a bad one is InvalidArgument).

geon runs a graph's nodes one after another (each node may use several threads), so
inter_op_num_threads and execution_mode are accepted and kept but change nothing.
"""

import ctypes
import enum
import operator

from . import _capi


class _OrtEnum(enum.IntEnum):
    """An IntEnum that prints as onnxruntime's enums do ("GraphOptimizationLevel.ORT_ENABLE_ALL")."""

    def __str__(self):
        return "%s.%s" % (type(self).__name__, self.name)

    def __format__(self, spec):
        return format(int(self), spec) if spec else str(self)


class GraphOptimizationLevel(_OrtEnum):
    """onnxruntime's levels; geon maps them onto its optimization_level 0 (none), 1 (constant
    folding) and 2 (folding and fusions): DISABLE_ALL 0, BASIC 1, EXTENDED and above 2."""

    ORT_DISABLE_ALL = 0
    ORT_ENABLE_BASIC = 1
    ORT_ENABLE_EXTENDED = 2
    ORT_ENABLE_LAYOUT = 3
    ORT_ENABLE_ALL = 99


class ExecutionMode(_OrtEnum):
    """Accepted for onnxruntime compatibility: geon always runs nodes sequentially."""

    ORT_SEQUENTIAL = 0
    ORT_PARALLEL = 1


_LOG_LEVELS = ("verbose", "info", "warning", "error")
# onnxruntime's severities: 0 verbose, 1 info, 2 warning, 3 error, 4 fatal.
_ORT_SEVERITY = {0: "verbose", 1: "info", 2: "warning", 3: "error", 4: "error"}

DEFAULT_PROFILE_PREFIX = "geon_profile"

_default_severity = None  # set_default_logger_severity's level, when called


def set_default_logger_severity(severity):
    """The log severity (onnxruntime's 0..4) of sessions that set neither log_severity_level
    nor log_level; geon's own default is 3 (errors only)."""
    global _default_severity
    if isinstance(severity, bool) or not isinstance(severity, int) or severity not in _ORT_SEVERITY:
        raise _capi.GeonError("set_default_logger_severity(%r): expected 0..4" % (severity,), _capi.INVALID_ARGUMENT)
    _default_severity = severity


class SessionOptions:
    """Per-session settings, with onnxruntime's attribute names (and geon's own extras: strict,
    log_level, arena_limit_bytes, poison_freed). The defaults are the library's defaults."""

    def __init__(self):
        self.intra_op_num_threads = 0  # 0: the process-wide engine pool
        self.inter_op_num_threads = 0  # accepted; geon runs nodes sequentially
        self.graph_optimization_level = GraphOptimizationLevel.ORT_ENABLE_ALL
        self.execution_mode = ExecutionMode.ORT_SEQUENTIAL  # accepted; always sequential
        self.enable_profiling = False
        self.profile_file_prefix = DEFAULT_PROFILE_PREFIX
        self.log_severity_level = -1  # -1: log_level decides; else onnxruntime's 0..4
        self.log_verbosity_level = 0
        self.logid = ""
        # Accepted for onnxruntime compatibility; geon's arena planning is always on.
        self.enable_cpu_mem_arena = True
        self.enable_mem_pattern = True
        self.enable_mem_reuse = True
        self.use_deterministic_compute = False
        self.optimized_model_filepath = ""
        # geon's own
        self.strict = False  # fail creation when a node cannot run on the first provider
        # "error", "warning", "info", "verbose", or 0..4 as onnxruntime; None: the default
        # (set_default_logger_severity's, else "error")
        self.log_level = None
        self.arena_limit_bytes = 0  # 0: no limit
        self.poison_freed = False  # debug: fill dead arena regions with 0xFF
        self._entries = {}

    def add_session_config_entry(self, key, value):
        """Keeps a configuration entry. A key of geon.h's options (such as "devices" or
        "strict") is passed to the library as is and overrides the attribute of that key;
        onnxruntime's own keys ("session.*", "optimization.*", ...) are kept but unused."""
        self._entries[str(key)] = str(value)

    def get_session_config_entry(self, key):
        try:
            return self._entries[str(key)]
        except KeyError:
            raise RuntimeError("SessionOptions does not have configuration with key: %s" % key) from None

    def copy(self):
        other = SessionOptions.__new__(SessionOptions)
        other.__dict__.update(self.__dict__)
        other._entries = dict(self._entries)
        return other

    def __repr__(self):
        fields = ", ".join("%s=%r" % (k, v) for k, v in vars(self).items() if not k.startswith("_"))
        return "SessionOptions(%s)" % fields


class RunOptions:
    """Per-run settings, as onnxruntime's. geon honours terminate (a run with it set fails
    with Fail before starting); the log levels and tags are kept but unused."""

    def __init__(self):
        self.log_severity_level = -1
        self.log_verbosity_level = 0
        self.logid = ""
        self.terminate = False
        self.only_execute_path_to_fetches = False
        self._entries = {}

    @property
    def run_tag(self):
        """onnxruntime's older name for logid."""
        return self.logid

    @run_tag.setter
    def run_tag(self, value):
        self.logid = value

    def add_run_config_entry(self, key, value):
        self._entries[str(key)] = str(value)

    def get_run_config_entry(self, key):
        try:
            return self._entries[str(key)]
        except KeyError:
            raise RuntimeError("RunOptions does not have configuration with key: %s" % key) from None


# The C ABI's option keys: a config entry of one of these is passed to the library.
_LIBRARY_KEYS = (
    "devices",
    "intra_op_threads",
    "optimization_level",
    "strict",
    "profiling",
    "log_level",
    "arena_limit_bytes",
    "poison_freed",
)
# Namespaces of onnxruntime's session config keys: kept, never passed on.
_ORT_KEY_PREFIXES = ("session.", "optimization.", "ep.", "mlas.", "kernel.", "gpu.", "cpu.")


def _bad(attribute, value, why):
    return _capi.GeonError(
        "SessionOptions.%s = %r: %s" % (attribute, value, why), _capi.INVALID_ARGUMENT
    )


def _count(attribute, value):
    if isinstance(value, bool):
        raise _bad(attribute, value, "expected a non-negative integer, not a bool")
    try:
        number = operator.index(value)
    except TypeError:
        raise _bad(attribute, value, "expected a non-negative integer") from None
    if number < 0:
        raise _bad(attribute, value, "must not be negative")
    return str(number)


def _flag(value):
    return "1" if value else "0"


def _optimization_level(value):
    # onnxruntime's GraphOptimizationLevel (0, 1, 2, 3, 99); geon has 0, 1 and 2.
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise _bad("graph_optimization_level", value, "expected a GraphOptimizationLevel") from None
    if number < 0:
        raise _bad("graph_optimization_level", value, "must not be negative")
    return str(min(number, 2))


def _log_level(options):
    severity = options.log_severity_level
    if severity is not None and not (isinstance(severity, int) and severity == -1):
        if isinstance(severity, bool) or not isinstance(severity, int) or severity not in _ORT_SEVERITY:
            raise _bad("log_severity_level", severity, "expected -1 or an onnxruntime severity 0..4")
        return _ORT_SEVERITY[severity]
    value = options.log_level
    if value is None:
        return _ORT_SEVERITY[_default_severity] if _default_severity is not None else "error"
    if isinstance(value, str):
        if value.lower() not in _LOG_LEVELS:
            raise _bad("log_level", value, "expected one of %s" % ", ".join(_LOG_LEVELS))
        return value.lower()
    if isinstance(value, int) and not isinstance(value, bool) and value in _ORT_SEVERITY:
        return _ORT_SEVERITY[value]
    raise _bad("log_level", value, "expected a level name or an onnxruntime severity 0..4")


def option_pairs(options, device_list):
    """(key, value) pairs for the C ABI, in a fixed order, raw library entries last.
    device_list: the "devices" value, or None for the library's default."""
    options = options if options is not None else SessionOptions()
    if not isinstance(options, SessionOptions):
        raise _capi.GeonError(
            "sess_options must be a geon.SessionOptions, not %s" % type(options).__name__,
            _capi.INVALID_ARGUMENT,
        )
    pairs = []
    if device_list is not None:
        pairs.append(("devices", device_list))
    pairs += [
        ("intra_op_threads", _count("intra_op_num_threads", options.intra_op_num_threads)),
        ("optimization_level", _optimization_level(options.graph_optimization_level)),
        ("strict", _flag(options.strict)),
        ("profiling", _flag(options.enable_profiling)),
        ("log_level", _log_level(options)),
        ("arena_limit_bytes", _count("arena_limit_bytes", options.arena_limit_bytes)),
        ("poison_freed", _flag(options.poison_freed)),
    ]
    # onnxruntime's own config keys are kept for get_session_config_entry but mean nothing here;
    # any other key goes to the library, which refuses the unknown ones.
    raw = {k: v for k, v in options._entries.items() if not k.startswith(_ORT_KEY_PREFIXES)}
    pairs = [(k, raw.pop(k, v)) for k, v in pairs]
    return pairs + sorted(raw.items())


class NativeOptions:
    """A GeonOptions* built from option pairs; released on exit from the `with` block."""

    def __init__(self, pairs):
        self._pairs = pairs
        self.handle = None

    def __enter__(self):
        table = _capi.api()
        out = ctypes.c_void_p()
        _capi.check(table.create_options(ctypes.byref(out)))
        self.handle = out
        try:
            for key, value in self._pairs:
                _capi.check(table.set_option(out, key.encode(), value.encode()))
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        if self.handle:
            _capi.api().release_options(self.handle)
            self.handle = None
        return False
