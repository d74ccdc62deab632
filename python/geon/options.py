"""SessionOptions (onnxruntime's attribute names) and their translation into the C ABI's
option keys; provider names ("cpu.dnnl", "CUDAExecutionProvider", ...) into the "devices" list.
Values are checked by the library when the session is created (a bad one is a GeonError).
"""

import ctypes
import operator

from . import _capi

# onnxruntime provider names, so that code written for it runs unchanged.
_PROVIDER_ALIASES = {
    "CPUExecutionProvider": "cpu",
    "DnnlExecutionProvider": "cpu.dnnl",
    "CUDAExecutionProvider": "cuda",
}

_LOG_LEVELS = ("verbose", "info", "warning", "error")
# onnxruntime's severities: 0 verbose, 1 info, 2 warning, 3 error, 4 fatal.
_ORT_SEVERITY = {0: "verbose", 1: "info", 2: "warning", 3: "error", 4: "error"}


class SessionOptions:
    """Per-session settings. The defaults are the library's own defaults."""

    def __init__(self):
        self.intra_op_num_threads = 0  # 0: one engine thread per hardware thread
        self.graph_optimization_level = 2  # 0: none; 1: constant folding; 2 and above: fusions
        self.strict = False  # fail creation when a node cannot run on the first provider
        self.enable_profiling = False
        self.log_level = "error"  # "error", "warning", "info", "verbose", or 0..4 as onnxruntime
        self.arena_limit_bytes = 0  # 0: no limit
        self.poison_freed = False  # debug: fill dead arena regions with 0xFF
        self._entries = {}

    def add_session_config_entry(self, key, value):
        """Passes one raw C ABI option (see geon.h); it overrides the attribute of that key."""
        self._entries[str(key)] = str(value)

    def get_session_config_entry(self, key):
        return self._entries[str(key)]

    def copy(self):
        other = SessionOptions()
        other.__dict__.update(self.__dict__)
        other._entries = dict(self._entries)
        return other

    def __repr__(self):
        fields = ", ".join("%s=%r" % (k, v) for k, v in vars(self).items() if not k.startswith("_"))
        return "SessionOptions(%s)" % fields


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
    # onnxruntime's GraphOptimizationLevel is an enum (0, 1, 2, 99); geon has 0, 1 and 2.
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise _bad("graph_optimization_level", value, "expected an integer level") from None
    if number < 0:
        raise _bad("graph_optimization_level", value, "must not be negative")
    return str(min(number, 2))


def _log_level(value):
    if isinstance(value, str):
        if value.lower() not in _LOG_LEVELS:
            raise _bad("log_level", value, "expected one of %s" % ", ".join(_LOG_LEVELS))
        return value.lower()
    if isinstance(value, int) and not isinstance(value, bool) and value in _ORT_SEVERITY:
        return _ORT_SEVERITY[value]
    raise _bad("log_level", value, "expected a level name or an onnxruntime severity 0..4")


def devices(providers):
    """The "devices" option for a provider list, or None for the library's default."""
    if providers is None:
        return None
    if isinstance(providers, str):
        providers = [providers]
    names = []
    for p in providers:
        if isinstance(p, tuple):  # onnxruntime's (name, {options}) form: options unsupported
            if len(p) != 2 or p[1]:
                raise _capi.GeonError(
                    "provider %r: per-provider options are not supported" % (p,), _capi.INVALID_ARGUMENT
                )
            p = p[0]
        if not isinstance(p, str) or not p:
            raise _capi.GeonError("provider %r: expected a kernel set name" % (p,), _capi.INVALID_ARGUMENT)
        names.append(_PROVIDER_ALIASES.get(p, p))
    if not names:
        raise _capi.GeonError("providers is empty: name at least one kernel set", _capi.INVALID_ARGUMENT)
    return ",".join(names)


def option_pairs(options, providers):
    """(key, value) pairs for the C ABI, in a fixed order, raw entries last."""
    options = options if options is not None else SessionOptions()
    if not isinstance(options, SessionOptions):
        raise _capi.GeonError(
            "sess_options must be a geon.SessionOptions, not %s" % type(options).__name__,
            _capi.INVALID_ARGUMENT,
        )
    pairs = []
    device_list = devices(providers)
    if device_list is not None:
        pairs.append(("devices", device_list))
    pairs += [
        ("intra_op_threads", _count("intra_op_num_threads", options.intra_op_num_threads)),
        ("optimization_level", _optimization_level(options.graph_optimization_level)),
        ("strict", _flag(options.strict)),
        ("profiling", _flag(options.enable_profiling)),
        ("log_level", _log_level(options.log_level)),
        ("arena_limit_bytes", _count("arena_limit_bytes", options.arena_limit_bytes)),
        ("poison_freed", _flag(options.poison_freed)),
    ]
    raw = dict(options._entries)
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
