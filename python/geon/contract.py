"""The provider contract (ORT style) for hosts that run part of a model themselves: load a model,
ask which nodes geon claims (grouped into subgraphs, with a reason for every node refused), and
compile a claimed subgraph into an InferenceSession over its boundary values.
"""

import ctypes
import os

from . import _capi, _providers
from .options import NativeOptions, SessionOptions, option_pairs
from .session import InferenceSession, _model_bytes


class _Owned:
    """A handle released by `release` when the last Python reference goes."""

    def __init__(self, handle, release_name, keep=None):
        self.handle = handle
        self._release_name = release_name
        self._keep = keep  # a handle this one reads from, kept alive after it

    def __del__(self):
        handle, self.handle = getattr(self, "handle", None), None
        if handle:
            try:
                getattr(_capi.api(), self._release_name)(handle)
            except Exception:  # interpreter shutdown: the library may be gone already
                pass


class Subgraph:
    def __init__(self, index, kernel_set, nodes):
        self.index = index
        self.kernel_set = kernel_set  # "cpu.dnnl", ...
        self.nodes = nodes  # model node indices, in execution order

    def __repr__(self):
        return "Subgraph(index=%d, kernel_set=%r, nodes=%r)" % (self.index, self.kernel_set, self.nodes)


class Model:
    """geon.Model(model, base_dir=None): a path, bytes or onnx.ModelProto, loaded for the
    contract. nodes: (name, op) per node in topological order."""

    def __init__(self, model, *, base_dir=None):
        table = _capi.api()
        out = ctypes.c_void_p()
        data = _model_bytes(model)
        if data is not None:
            base = os.fsencode(base_dir) if base_dir is not None else None
            _capi.check(table.load_model_from_bytes(data, len(data), base, ctypes.byref(out)), _capi.CREATE)
        elif isinstance(model, (str, os.PathLike)):
            _capi.check(table.load_model(os.fsencode(model), ctypes.byref(out)), _capi.CREATE)
        else:
            raise _capi.GeonError(
                "model must be a path, bytes or an onnx.ModelProto, not %s" % type(model).__name__,
                _capi.INVALID_ARGUMENT,
            )
        self._owner = _Owned(out, "release_model")
        handle = self._owner.handle
        self.nodes = [
            (_capi.text(table.model_node_name(handle, i)), _capi.text(table.model_node_op(handle, i)))
            for i in range(table.model_node_count(handle))
        ]

    def capability(self, providers=None, sess_options=None):
        """The nodes geon claims with these providers (and sess_options.strict)."""
        return Capability(self, providers, sess_options)


class Capability:
    def __init__(self, model, providers, sess_options):
        table = _capi.api()
        self._model = model
        self._options = (sess_options or SessionOptions()).copy()
        self._providers = providers
        out = ctypes.c_void_p()
        with NativeOptions(option_pairs(self._options, _providers.resolve(providers).devices)) as native:
            _capi.check(table.get_capability(model._owner.handle, native.handle, ctypes.byref(out)))
        self._owner = _Owned(out, "release_capability", keep=model._owner)
        handle = self._owner.handle
        self.subgraphs = []
        for s in range(table.capability_subgraph_count(handle)):
            nodes = [
                table.capability_subgraph_node(handle, s, k)
                for k in range(table.capability_subgraph_node_count(handle, s))
            ]
            self.subgraphs.append(Subgraph(s, _capi.text(table.capability_subgraph_set(handle, s)), nodes))
        self.node_subgraph = []  # per model node: its subgraph index, or None when unclaimed
        self.node_reason = []  # per model node: why it is unclaimed ("" when claimed)
        for i in range(len(model.nodes)):
            claimed = table.capability_node_subgraph(handle, i)
            self.node_subgraph.append(None if claimed < 0 else int(claimed))
            self.node_reason.append(_capi.text(table.capability_node_reason(handle, i)))

    def compile(self, subgraph):
        """An InferenceSession running one claimed subgraph; its inputs and outputs are the
        subgraph's boundary values, by their model names."""
        if not 0 <= subgraph < len(self.subgraphs):
            raise _capi.GeonError(
                "subgraph %r: the capability has %d subgraphs" % (subgraph, len(self.subgraphs)),
                _capi.INVALID_ARGUMENT,
            )
        table = _capi.api()
        out = ctypes.c_void_p()
        with NativeOptions(option_pairs(self._options, _providers.resolve(self._providers).devices)) as native:
            _capi.check(
                table.compile(
                    self._model._owner.handle, self._owner.handle, subgraph, native.handle, ctypes.byref(out)
                ),
                _capi.CREATE,
            )
        return InferenceSession._from_handle(out, self._options, self._providers)
