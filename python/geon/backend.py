"""geon as an ONNX backend (onnx.backend.base): prepare(model, device) -> a rep whose run(inputs)
returns the outputs; the module-level functions are what onnx.backend.test.BackendTest calls.
Needs the onnx package (the rest of geon does not).
"""

import numpy as np
import onnx
import onnx.helper
from onnx.backend.base import Backend, BackendRep, Device, DeviceType, namedtupledict

from . import _capi
from .options import SessionOptions
from .session import InferenceSession


def _providers(device):
    kind = Device(device).type
    if kind == DeviceType.CPU:
        return ["cpu"]
    if kind == DeviceType.CUDA:
        return ["cuda", "cpu"]
    raise _capi.GeonError("device %r is not one geon runs on" % (device,), _capi.UNSUPPORTED)


class GeonBackendRep(BackendRep):
    """A prepared model: one InferenceSession, run with positional, named or single inputs."""

    def __init__(self, session):
        self.session = session
        # Positional inputs: those without a default, then those with one (which may be fed).
        inputs = session.get_inputs() + session.get_overridable_initializers()
        self._input_names = [i.name for i in inputs]
        self._output_names = [o.name for o in session.get_outputs()]

    def run(self, inputs, **kwargs):
        del kwargs
        if isinstance(inputs, dict):
            feed = inputs
        elif isinstance(inputs, (list, tuple)):
            if len(inputs) > len(self._input_names):
                raise _capi.GeonError(
                    "%d inputs given, the model has %d" % (len(inputs), len(self._input_names)),
                    _capi.INVALID_ARGUMENT,
                )
            feed = dict(zip(self._input_names, inputs))
        else:
            feed = {self._input_names[0]: inputs} if self._input_names else {}
        outputs = self.session.run(None, feed)
        return namedtupledict("Outputs", self._output_names)(*outputs)


class GeonBackend(Backend):
    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        """kwargs: sess_options (a geon.SessionOptions), providers (overrides the device's)."""
        if isinstance(model, (bytes, bytearray)):
            model = onnx.load_model_from_string(bytes(model))
        super().prepare(model, device, **kwargs)
        providers = kwargs.get("providers") or _providers(device)
        session = InferenceSession(model, sess_options=kwargs.get("sess_options"), providers=providers)
        return GeonBackendRep(session)

    @classmethod
    def run_model(cls, model, inputs, device="CPU", **kwargs):
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node, inputs, device="CPU", outputs_info=None, **kwargs):
        """Runs one node by wrapping it in a one-node model (opset: kwargs["opset_version"],
        else onnx's newest)."""
        super().run_node(node, inputs, device=device, outputs_info=outputs_info, **kwargs)
        if isinstance(inputs, dict):
            arrays = [np.asarray(inputs[name]) for name in node.input if name]
        else:
            arrays = [np.asarray(a) for a in inputs]
        names = [name for name in node.input if name]
        graph_inputs = [
            onnx.helper.make_tensor_value_info(n, onnx.helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
            for n, a in zip(names, arrays)
        ]
        graph_outputs = []
        for k, name in enumerate(node.output):
            if outputs_info is not None and k < len(outputs_info):
                dtype, shape = outputs_info[k]
                elem = onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
                graph_outputs.append(onnx.helper.make_tensor_value_info(name, elem, shape))
            else:
                graph_outputs.append(onnx.helper.make_empty_tensor_value_info(name))
        opset = kwargs.get("opset_version") or onnx.defs.onnx_opset_version()
        graph = onnx.helper.make_graph([node], "run_node", graph_inputs, graph_outputs)
        model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", opset)])
        session = InferenceSession(model, providers=_providers(device))
        return tuple(session.run(None, dict(zip(names, arrays))))

    @classmethod
    def supports_device(cls, device):
        """CPU always; CUDA when a strict session on the "cuda" set can be created (the library
        has it compiled in and a GPU is present)."""
        try:
            kind = Device(device).type
        except (AttributeError, ValueError):
            return False
        if kind == DeviceType.CPU:
            return True
        if kind == DeviceType.CUDA:
            return _cuda_usable()
        return False


_cuda_probe = None


def _cuda_usable():
    global _cuda_probe
    if _cuda_probe is None:
        x = onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2])
        y = onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2])
        node = onnx.helper.make_node("Add", ["x", "x"], ["y"])
        graph = onnx.helper.make_graph([node], "probe", [x], [y])
        model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 13)])
        options = SessionOptions()
        options.strict = True
        try:
            InferenceSession(model, sess_options=options, providers=["cuda"])
            _cuda_probe = True
        except _capi.GeonError:
            _cuda_probe = False
    return _cuda_probe


prepare = GeonBackend.prepare
run_model = GeonBackend.run_model
run_node = GeonBackend.run_node
supports_device = GeonBackend.supports_device
is_compatible = GeonBackend.is_compatible
