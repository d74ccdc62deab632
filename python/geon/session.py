"""InferenceSession: a whole model run by geon, with onnxruntime's Python API (inputs and
outputs as NodeArgs, run, I/O binding, model metadata, profiling to a file), plus geon's
extras (base_dir, ModelProto input, placement_report(), graph_dump()).

A session may be run from several threads at once (the library's run is thread-safe and ctypes
releases the GIL during the call).
"""

import ctypes
import datetime
import json
import os
import time
import warnings

from collections.abc import Mapping

from . import _capi, _dtypes, _errors, _providers, _run_path, _tensors, _values
from .io_binding import IOBinding, OrtValue
from .options import NativeOptions, RunOptions, SessionOptions, option_pairs


class NodeArg:
    """An input or output as the model declares it. shape: a list of ints, symbol strings
    ("batch") and None (unknown, unnamed) per dim; [] when even the rank is unknown (as
    onnxruntime)."""

    def __init__(self, name, dtype, shape):
        self.name = name
        self.dtype = dtype  # the ONNX element type number
        self.type = _dtypes.type_string(dtype)
        self.shape = shape
        self.has_default = False  # inputs: an initializer a run may override

    def __repr__(self):
        return "NodeArg(name=%r, type=%r, shape=%r)" % (self.name, self.type, self.shape)


_NO_VERSION = 2**63 - 1


class ModelMetadata:
    """What the model says about itself, with onnxruntime's attribute names (version is the
    ModelProto's model_version, description its doc_string), and geon's extras
    producer_version, ir_version and opset_imports."""

    def __init__(self, fields):
        self.producer_name = fields.get("producer_name", "")
        self.graph_name = fields.get("graph_name", "")
        self.domain = fields.get("domain", "")
        self.description = fields.get("description", "")
        self.graph_description = fields.get("graph_description", "")
        version = fields.get("model_version")
        # onnxruntime's "no version": the largest int64, when the model sets none.
        self.version = int(version) if version is not None else _NO_VERSION
        self.custom_metadata_map = dict(fields.get("custom_metadata", {}))
        self.producer_version = fields.get("producer_version", "")
        self.ir_version = int(fields.get("ir_version", 0))
        self.opset_imports = dict(fields.get("opset_imports", {}))

    def __repr__(self):
        return "ModelMetadata(%s)" % ", ".join("%s=%r" % kv for kv in vars(self).items())


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
    shape = []  # rank unknown: [] as onnxruntime reports it
    for k in range(max(info.rank, 0)):
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


def _profile_file_name(prefix):
    """onnxruntime's profile file name: <prefix>_<date>_<time>_<milliseconds>.json."""
    now = datetime.datetime.now()
    return "%s_%s_%03d.json" % (prefix, now.strftime("%Y-%m-%d_%H-%M-%S"), now.microsecond // 1000)


class InferenceSession:
    """geon.InferenceSession(path_or_bytes, sess_options=None, providers=None,
    provider_options=None, *, base_dir=None)

    path_or_bytes: a path, the model's bytes, or an onnx.ModelProto. providers: onnxruntime's
    names ("CPUExecutionProvider", "CUDAExecutionProvider", or (name, options) tuples) or
    geon's kernel sets in priority order ("cpu.dnnl", "cpu.generic", "cpu", "cuda"); None: the
    library's default (CPU). base_dir: where the external data of a model given as bytes is
    looked up (None: such a model is refused). Other keyword arguments of onnxruntime's
    (disabled_optimizers, ...) are accepted and ignored.
    """

    def __init__(self, path_or_bytes, sess_options=None, providers=None, provider_options=None, **kwargs):
        self._owner = None
        base_dir = kwargs.pop("base_dir", None)
        self._model_source = (path_or_bytes, base_dir)
        self._options = (sess_options or SessionOptions()).copy()
        self._create(providers, provider_options)

    def _create(self, providers, provider_options):
        table = _capi.api()
        model, base_dir = self._model_source
        request = _providers.resolve(providers, provider_options)
        pairs = option_pairs(self._options, request.devices)
        out = ctypes.c_void_p()
        with NativeOptions(pairs) as native:
            data = _model_bytes(model)
            if data is not None:
                base = os.fsencode(base_dir) if base_dir is not None else None
                status = table.create_session_from_bytes(data, len(data), base, native.handle, ctypes.byref(out))
            elif isinstance(model, (str, os.PathLike)):
                status = table.create_session(os.fsencode(model), native.handle, ctypes.byref(out))
            else:
                raise _errors.InvalidArgument(
                    "path_or_bytes must be a path, bytes or an onnx.ModelProto, not %s" % type(model).__name__,
                    _capi.INVALID_ARGUMENT,
                )
            _capi.check(status, _capi.CREATE)
        self._request = request
        self._adopt(out)
        if request.style == "ort" and _providers.CUDA in request.names and _providers.CUDA not in self.get_providers():
            warnings.warn(
                "Specified provider 'CUDAExecutionProvider' is not in available provider names."
                "Available providers: '%s'" % ", ".join(self.get_providers())
            )

    @classmethod
    def _from_handle(cls, handle, options, providers):
        """A session over a GeonSession* made elsewhere (the contract's compile)."""
        session = cls.__new__(cls)
        session._owner = None
        session._model_source = None
        session._options = options.copy()
        session._request = _providers.resolve(providers)
        session._adopt(handle)
        return session

    def _adopt(self, handle):
        table = _capi.api()
        self._owner = _SessionOwner(handle)
        self._inputs = self._infos(table.session_input_count, table.session_input_info)
        self._outputs = self._infos(table.session_output_count, table.session_output_info)
        # Types as onnxruntime spells them ("seq(tensor(float))"); sequences and optionals
        # make run() take the values path.
        for args, type_of in ((self._inputs, table.session_input_type), (self._outputs, table.session_output_type)):
            for i, arg in enumerate(args):
                out = ctypes.c_void_p()
                _capi.check(type_of(self._owner.handle, i, ctypes.byref(out)))
                arg.type = _capi.take_string(out.value)
        self._takes_values = any(_values.is_value_type(a.type) for a in self._inputs + self._outputs)
        for i, arg in enumerate(self._inputs):
            arg.has_default = bool(table.session_input_has_default(self._owner.handle, i))
        self._required = frozenset(a.name for a in self._inputs if not a.has_default)
        self._feedable = frozenset(a.name for a in self._inputs)
        self._produced = frozenset(a.name for a in self._outputs)
        self._run_path = _run_path.RunPath(self._inputs)
        self._profile_file = None
        self._profile_start_ns = 0
        if self._options.enable_profiling:
            # Named when profiling starts, as onnxruntime does.
            self._profile_file = _profile_file_name(self._options.profile_file_prefix)
            self._profile_start_ns = time.time_ns()
        self._used = None
        self._metadata = None

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
            raise _errors.NoModel("the session is closed", _capi.INVALID_ARGUMENT)
        return self._owner.handle

    def _used_sets(self):
        """The kernel sets the session uses (the placement report's devices.used)."""
        if self._used is None:
            self._used = list(self.placement_report().get("devices", {}).get("used", []))
        return self._used

    # --- metadata ------------------------------------------------------------------------
    def get_inputs(self):
        """The inputs a run must feed (those without a default), as onnxruntime."""
        return [a for a in self._inputs if not a.has_default]

    def get_overridable_initializers(self):
        """The inputs with a default (an initializer), which a run may feed to override it."""
        return [a for a in self._inputs if a.has_default]

    def get_outputs(self):
        return list(self._outputs)

    def get_providers(self):
        """The providers in use, named as they were asked for: onnxruntime's names (CUDA only
        when the cuda set is usable; CPU last) unless geon's kernel set names were given."""
        return _providers.names_in_use(self._request, self._used_sets())

    def get_provider_options(self):
        """{provider: {option: value}} for each provider in use (the options given for it)."""
        return {name: dict(self._request.options.get(name, {})) for name in self.get_providers()}

    def set_providers(self, providers=None, provider_options=None):
        """Recreates the session on other providers (onnxruntime's set_providers)."""
        if self._model_source is None:
            raise _errors.Fail("a session compiled from a capability cannot change providers", _capi.INVALID_ARGUMENT)
        self._create(providers, provider_options)

    def get_session_options(self):
        return self._options.copy()

    def get_modelmeta(self):
        """The model's metadata (onnxruntime's ModelMetadata)."""
        if self._metadata is None:
            self._metadata = json.loads(self._string_call(_capi.api().session_model_metadata))
        return ModelMetadata(self._metadata)

    def get_profiling_start_time_ns(self):
        """When profiling started (time.time_ns() at session creation), 0 when it is off."""
        return self._profile_start_ns

    # --- running ---------------------------------------------------------------------------
    def run(self, output_names, input_feed, run_options=None):
        """Runs the model: input_feed maps input names to arrays (array-likes such as lists
        take the input's declared element type); returns the outputs named in output_names
        (None or empty: all, in model order) as arrays."""
        handle = self._handle()
        if type(input_feed) is not dict and not isinstance(input_feed, Mapping):
            raise _errors.InvalidArgument(
                "input_feed must be a mapping of input names to arrays, not %s" % type(input_feed).__name__,
                _capi.INVALID_ARGUMENT,
            )
        if run_options is not None:
            _check_run_options(run_options)
        if self._takes_values:
            if not self._required <= input_feed.keys():
                self._missing_inputs(input_feed)
            return _values.run(self, handle, output_names, input_feed)
        path = self._run_path
        if output_names:
            if isinstance(output_names, str):
                output_names = [output_names]
            names = tuple(str(n) for n in output_names)
        else:
            names = None
        # Plain arrays under names and shapes an earlier run took (so every required input is
        # among them): one C call, no per-run ctypes structures.
        address = getattr(handle, "value", handle)
        arrays = path.fast_run(address, input_feed, names)
        if arrays is not None:
            return arrays
        arrays = path.run_plain(address, input_feed, names)
        if arrays is not None:
            return arrays
        if not self._required <= input_feed.keys():
            self._missing_inputs(input_feed)
        in_names, in_tensors, n_in, keep, key = path.feed(input_feed)
        if names:
            out_names = path.name_array(names)
            n_out = len(names)
        else:
            n_out, out_names = 0, None
        key += (names,)
        arrays = path.run_known(handle, in_names, in_tensors, n_in, out_names, n_out, key)
        if arrays is not None:
            return arrays
        result = ctypes.c_void_p()
        status = path.run(handle, in_names, in_tensors, n_in, out_names, n_out, None, ctypes.byref(result))
        del keep  # the inputs' memory was needed until the call returned
        if status:
            _capi.check(status, _capi.RUN)
        if not result:
            raise _errors.Fail("run succeeded but returned no result", _capi.INTERNAL)
        arrays = path.outputs(_tensors.ResultOwner(result, self._owner))
        path.remember(key, arrays)
        return arrays

    def run_with_ort_values(self, output_names, input_dict_ort_values, run_options=None):
        """run() with OrtValues in and out, as onnxruntime's."""
        feed = {name: value.numpy() if isinstance(value, OrtValue) else value
                for name, value in input_dict_ort_values.items()}
        return [OrtValue(array) for array in self.run(output_names, feed, run_options)]

    def _missing_inputs(self, input_feed):
        # onnxruntime checks this in Python, with a ValueError of this wording.
        missing = [a.name for a in self._inputs if a.name in self._required and a.name not in input_feed]
        raise ValueError("Required inputs (%s) are missing from input feed (%s)." % (missing, list(input_feed)))

    def io_binding(self):
        return IOBinding(self)

    def run_with_iobinding(self, iobinding, run_options=None):
        """Runs with the inputs and outputs bound to `iobinding`: outputs bound to caller
        memory are written there in place; the others are read with iobinding.get_outputs()."""
        handle = self._handle()
        if run_options is not None:
            _check_run_options(run_options)
        bound = iobinding._outputs
        if not bound:
            raise RuntimeError("Error in execution: At least one output should be requested.")
        if not self._required <= iobinding._inputs.keys():
            self._missing_inputs(iobinding._inputs)
        path = self._run_path
        in_names, in_tensors, n_in, keep, _ = path.feed(iobinding._inputs)
        names = tuple(name for name, _ in bound)
        outputs = (_capi.GeonTensor * len(bound))()
        for k, (name, value) in enumerate(bound):
            if value is not None:
                array = value.numpy()
                if not (array.flags.c_contiguous and array.flags.writeable):
                    raise _errors.InvalidArgument(
                        "output '%s': the bound memory must be C-contiguous and writable" % name,
                        _capi.INVALID_ARGUMENT,
                    )
                shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
                keep.append(shape)
                outputs[k] = _capi.GeonTensor(
                    _dtypes.from_numpy(array.dtype), array.ndim, shape, array.ctypes.data, array.nbytes
                )
        result = ctypes.c_void_p()
        status = path.run(
            handle, in_names, in_tensors, n_in, path.name_array(names), len(names), outputs, ctypes.byref(result)
        )
        del keep
        if status:
            _capi.check(status, _capi.RUN)
        allocated = {}
        if result:
            owner = _tensors.ResultOwner(result, self._owner)
            table = _capi.api()
            for i in range(table.result_count(result)):
                allocated[_capi.text(table.result_name(result, i))] = OrtValue(
                    _tensors.result_array(owner, i), owner
                )
        values = []
        for name, value in bound:
            if value is None:
                value = allocated.get(name)
                if value is None:
                    raise _errors.Fail("run returned no tensor for output '%s'" % name, _capi.INTERNAL)
            values.append(value)
        iobinding._values = values

    # --- reports ---------------------------------------------------------------------------
    def end_profiling(self):
        """Ends profiling: writes the events of the runs so far to a file named
        <profile_file_prefix>_<date>_<time>.json in the current directory and returns its
        name, as onnxruntime does; "" when profiling is off (or already ended). The file is a
        Chrome trace in onnxruntime's layout: a JSON array of complete ("X") events, one per
        node run, with category "Node" and args.op_name, args.provider."""
        name, self._profile_file = self._profile_file, None
        if name is None:
            return ""
        events = json.loads(self._string_call(_capi.api().end_profiling)).get("traceEvents", [])
        with open(name, "w", encoding="utf-8") as f:
            json.dump([self._ort_event(e) for e in events], f, indent=1)
        return name

    def _ort_event(self, event):
        """A geon trace event in onnxruntime's layout: category "Node", with the op in
        args.op_name and the provider in args.provider (geon's own args kept beside them)."""
        args = dict(event.get("args", {}))
        kernel_set = args.get("set", "")
        args["op_name"] = args.get("op", event.get("cat", ""))
        args["provider"] = _providers.names_in_use(self._request, [kernel_set])[0] if kernel_set else ""
        return dict(event, cat="Node", args=args)

    def placement_report(self):
        """Where each node runs and why, the subgraphs, transfers and peak memory, as a dict."""
        return json.loads(self._string_call(_capi.api().placement_report))

    def graph_dump(self):
        """The imported graph as text."""
        return self._string_call(_capi.api().session_graph_dump)

    def _string_call(self, function):
        out = ctypes.c_void_p()
        _capi.check(function(self._handle(), ctypes.byref(out)))
        return _capi.take_string(out.value)


def _check_run_options(run_options):
    if not isinstance(run_options, RunOptions):
        raise TypeError("run_options must be a geon.RunOptions, not %s" % type(run_options).__name__)
    if run_options.terminate:
        raise _errors.Fail("Exiting due to terminate flag being set to true.", _capi.INVALID_ARGUMENT)
