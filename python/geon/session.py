"""InferenceSession: a whole model run by geon, with onnxruntime's method names.

A session may be run from several threads at once (the library's run is thread-safe and ctypes
releases the GIL during the call).
"""

import ctypes
import json
import os

from collections.abc import Mapping

from . import _capi, _dtypes, _run_path, _tensors
from .options import NativeOptions, SessionOptions, option_pairs


class NodeArg:
    """An input or output as the model declares it. shape: a list of ints, symbol strings
    ("batch") and None (unknown, unnamed) per dim; None when even the rank is unknown."""

    def __init__(self, name, dtype, shape):
        self.name = name
        self.dtype = dtype  # the ONNX element type number
        self.type = _dtypes.type_string(dtype)
        self.shape = shape
        self.has_default = False  # inputs: an initializer a run may override

    def __repr__(self):
        return "NodeArg(name=%r, type=%r, shape=%r)" % (self.name, self.type, self.shape)


class _SessionOwner:
    """Owns the GeonSession*; outputs still in use keep it alive through their result."""

    def __init__(self, handle):
        self.handle = handle

    def __del__(self):
        handle, self.handle = getattr(self, "handle", None), None
        if handle:
            try:
                _capi.api().release_session(handle)
            except Exception:  # interpreter shutdown: the library may be gone already
                pass


def _node_arg(info):
    if info.rank < 0:
        shape = None
    else:
        shape = []
        for k in range(info.rank):
            length = info.dims[k]
            if length >= 0:
                shape.append(int(length))
            else:
                symbol = info.dim_names[k] if info.dim_names else None
                shape.append(symbol.decode("utf-8", "replace") if symbol else None)
    return NodeArg(_capi.text(info.name), info.dtype, shape)


def _model_bytes(model):
    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model)
    if hasattr(model, "SerializeToString"):  # an onnx.ModelProto
        return model.SerializeToString()
    return None


class InferenceSession:
    """geon.InferenceSession(model, sess_options=None, providers=None, *, base_dir=None)

    model: a path, the model's bytes, or an onnx.ModelProto. providers: kernel sets in priority
    order ("cpu.dnnl", "cpu.generic", "cpu", "cuda"; onnxruntime's names are accepted too);
    None: the library's default. base_dir: where the external data of a model given as bytes
    is looked up (None: such a model is refused).
    """

    def __init__(self, model, sess_options=None, providers=None, *, base_dir=None):
        self._owner = None
        table = _capi.api()
        self._options = (sess_options or SessionOptions()).copy()
        if isinstance(providers, str):
            providers = [providers]
        self._providers = list(providers) if providers is not None else None
        pairs = option_pairs(self._options, providers)
        out = ctypes.c_void_p()
        with NativeOptions(pairs) as native:
            data = _model_bytes(model)
            if data is not None:
                base = os.fsencode(base_dir) if base_dir is not None else None
                _capi.check(
                    table.create_session_from_bytes(data, len(data), base, native.handle, ctypes.byref(out))
                )
            elif isinstance(model, (str, os.PathLike)):
                path = os.fsencode(model)
                _capi.check(table.create_session(path, native.handle, ctypes.byref(out)))
            else:
                raise _capi.GeonError(
                    "model must be a path, bytes or an onnx.ModelProto, not %s" % type(model).__name__,
                    _capi.INVALID_ARGUMENT,
                )
        self._adopt(out)

    @classmethod
    def _from_handle(cls, handle, options, providers):
        """A session over a GeonSession* made elsewhere (the contract's compile)."""
        session = cls.__new__(cls)
        session._owner = None
        session._options = options.copy()
        session._providers = list(providers) if providers is not None else None
        session._adopt(handle)
        return session

    def _adopt(self, handle):
        table = _capi.api()
        self._owner = _SessionOwner(handle)
        self._inputs = self._infos(table.session_input_count, table.session_input_info)
        self._outputs = self._infos(table.session_output_count, table.session_output_info)
        for i, arg in enumerate(self._inputs):
            arg.has_default = bool(table.session_input_has_default(self._owner.handle, i))
        self._run_path = _run_path.RunPath(self._inputs)

    def _infos(self, count, info):
        handle = self._owner.handle
        args = []
        for i in range(count(handle)):
            value = _capi.GeonValueInfo()
            _capi.check(info(handle, i, ctypes.byref(value)))
            args.append(_node_arg(value))
        return args

    def _handle(self):
        if self._owner is None or not self._owner.handle:
            raise _capi.GeonError("the session is closed", _capi.INVALID_ARGUMENT)
        return self._owner.handle

    # --- metadata ------------------------------------------------------------------------
    def get_inputs(self):
        """Inputs without a default first, then those with one (which may be fed too)."""
        return list(self._inputs)

    def get_outputs(self):
        return list(self._outputs)

    def get_providers(self):
        """The providers asked for (None: the library's default); placement_report() says
        where each node actually runs."""
        return list(self._providers) if self._providers is not None else None

    def get_session_options(self):
        return self._options.copy()

    # --- running ---------------------------------------------------------------------------
    def run(self, output_names, input_feed, run_options=None):
        """Runs the model: input_feed maps input names to arrays (array-likes such as lists
        take the input's declared element type); returns the outputs named in output_names
        (None or empty: all, in model order) as arrays."""
        del run_options  # accepted for onnxruntime compatibility; geon has no run options
        handle = self._handle()
        if type(input_feed) is not dict and not isinstance(input_feed, Mapping):
            raise _capi.GeonError(
                "input_feed must be a mapping of input names to arrays, not %s" % type(input_feed).__name__,
                _capi.INVALID_ARGUMENT,
            )
        path = self._run_path
        in_names, in_tensors, n_in, keep = path.feed(input_feed)
        if output_names:
            if isinstance(output_names, str):
                output_names = [output_names]
            out_names = path.name_array(tuple(str(n) for n in output_names))
            n_out = len(output_names)
        else:
            n_out, out_names = 0, None
        result = ctypes.c_void_p()
        status = path.run(handle, in_names, in_tensors, n_in, out_names, n_out, None, ctypes.byref(result))
        del keep  # the inputs' memory was needed until the call returned
        if status:
            _capi.check(status)
        if not result:
            raise _capi.GeonError("run succeeded but returned no result", _capi.INTERNAL)
        return path.outputs(_tensors.ResultOwner(result, self._owner))

    # --- reports ---------------------------------------------------------------------------
    def placement_report(self):
        """Where each node runs and why, the subgraphs, transfers and peak memory, as a dict."""
        return json.loads(self._string_call(_capi.api().placement_report))

    def end_profiling(self):
        """The Chrome-trace JSON string of the runs since creation or the last call."""
        return self._string_call(_capi.api().end_profiling)

    def graph_dump(self):
        """The imported graph as text."""
        return self._string_call(_capi.api().session_graph_dump)

    def _string_call(self, function):
        out = ctypes.c_void_p()
        _capi.check(function(self._handle(), ctypes.byref(out)))
        return _capi.take_string(out.value)
