"""Provider names: onnxruntime's ("CPUExecutionProvider", ...) and geon's kernel sets
("cpu.dnnl", "cpu.generic", "cpu", "cuda") into the C ABI's "devices" list, and the sets a
session uses back into the names its caller would expect; which providers this library can run.
"""

import warnings

from . import _capi

CPU = "CPUExecutionProvider"
CUDA = "CUDAExecutionProvider"
DNNL = "DnnlExecutionProvider"

# onnxruntime name -> geon kernel sets.
ORT_TO_SETS = {CPU: "cpu", DNNL: "cpu.dnnl", CUDA: "cuda"}


class Request:
    """What the caller asked for: .devices (the "devices" option, None for the library's
    default), .style ("ort" or "geon": how get_providers() names what is used), .options
    (name -> the caller's provider options)."""

    def __init__(self, devices, style, names, options):
        self.devices = devices
        self.style = style
        self.names = names
        self.options = options


def _entries(providers, provider_options):
    if providers is None:
        return []
    if isinstance(providers, str):
        providers = [providers]
    providers = list(providers)
    if provider_options is not None:
        provider_options = list(provider_options)
        if len(provider_options) != len(providers):
            raise ValueError("'providers' and 'provider_options' should be the same length if both are given.")
    entries = []
    for k, p in enumerate(providers):
        options = provider_options[k] if provider_options is not None else {}
        if isinstance(p, tuple):  # onnxruntime's (name, {options}) form
            if len(p) != 2 or not isinstance(p[1], dict):
                raise ValueError("Tuple of providers must be in the form (name, {options}), not %r" % (p,))
            p, options = p
        if not isinstance(p, str) or not p:
            raise _capi.GeonError("provider %r: expected a provider name" % (p,), _capi.INVALID_ARGUMENT)
        entries.append((p, {str(k): str(v) for k, v in (options or {}).items()}))
    return entries


def resolve(providers, provider_options=None):
    """The Request for InferenceSession's providers and provider_options arguments."""
    entries = _entries(providers, provider_options)
    if not entries:
        return Request(None, "ort", [], {})
    if all(name.endswith("ExecutionProvider") for name, _ in entries):
        # onnxruntime's names: an unknown one is skipped with a warning, and the CPU provider
        # is always the last fallback, as onnxruntime does.
        known = []
        for name, options in entries:
            if name in ORT_TO_SETS:
                known.append((name, options))
            else:
                warnings.warn(
                    "Specified provider '%s' is not in available provider names.Available providers: '%s'"
                    % (name, ", ".join(get_available_providers()))
                )
        if not any(name == CPU for name, _ in known):
            known.append((CPU, {}))
        sets = ",".join(ORT_TO_SETS[name] for name, _ in known)
        return Request(sets, "ort", [n for n, _ in known], dict(known))
    # geon's kernel set names (a mix with onnxruntime's names is translated name by name).
    sets = ",".join(ORT_TO_SETS.get(name, name) for name, _ in entries)
    return Request(sets, "geon", [n for n, _ in entries], dict(entries))


def names_in_use(request, used_sets):
    """get_providers(): the sets a session uses (the placement report's devices.used), named
    as the caller named providers."""
    if request.style == "geon":
        return list(used_sets)
    names = []
    for s in used_sets:
        if s.startswith("cuda"):
            name = CUDA
        elif s == "cpu.dnnl" and DNNL in request.names:
            name = DNNL
        else:
            name = CPU
        if name not in names:
            names.append(name)
    # onnxruntime lists its CPU provider last, as the fallback.
    if CPU in names:
        names.remove(CPU)
        names.append(CPU)
    return names


_available = None


def get_all_providers():
    """Every provider name geon knows, onnxruntime-style, whether usable here or not."""
    return [CUDA, DNNL, CPU]


def get_available_providers():
    """onnxruntime-style names of what this library can run here, in priority order:
    CUDAExecutionProvider only when the cuda set is compiled in and a GPU is usable."""
    global _available
    if _available is None:
        from .session import InferenceSession  # a probe session: imported here to avoid a cycle

        names = []
        try:
            probe = InferenceSession(_probe_model(), providers=["cuda", "cpu"])
            used = probe._used_sets()
        except _capi.GeonError:
            used = ["cpu.generic"]
        if any(s.startswith("cuda") for s in used):
            names.append(CUDA)
        names.append(CPU)
        _available = names
    return list(_available)


def _probe_model():
    """A one-Add model's bytes, written without the onnx package (geon does not need it)."""
    # ModelProto { ir_version 8, opset_import { version 13 }, graph { node Add(x, x) -> y,
    # input x: float[2], output y: float[2] } }, serialized by hand.
    def varint(n):
        out = bytearray()
        while True:
            byte = n & 0x7F
            n >>= 7
            out.append(byte | (0x80 if n else 0))
            if not n:
                return bytes(out)

    def field(number, payload):
        return varint(number << 3 | 2) + varint(len(payload)) + payload

    def value_info(name):
        dim = field(1, varint(1 << 3) + varint(2))  # TensorShapeProto.Dimension { dim_value 2 }
        tensor = varint(1 << 3) + varint(1) + field(2, dim)  # elem_type FLOAT, shape
        return field(1, name) + field(2, field(1, tensor))

    node = field(1, b"x") + field(1, b"x") + field(2, b"y") + field(4, b"Add")
    graph = field(1, node) + field(2, b"probe") + field(11, value_info(b"x")) + field(12, value_info(b"y"))
    return varint(1 << 3) + varint(8) + field(7, graph) + field(8, varint(2 << 3) + varint(13))
