"""Sequences, optionals and maps in and out (C API versions 3 and 4). A model with such an input
or output runs through run_values, with onnxruntime's Python conventions: a sequence is a list of
arrays, an optional is what it holds or None, a map (ai.onnx.ml) is a dict and a sequence of maps
a list of dicts; tensors stay arrays.
"""

import ctypes

from . import _capi, _dtypes, _tensors


def is_value_type(type_string):
    return type_string.startswith(("seq(", "optional(", "map("))


def _key_dtype(type_string):
    """The ONNX key type number of a map type ("map(int64,tensor(float))" -> 7)."""
    name = type_string[type_string.find("map(") + len("map("):].split(",")[0]
    return _dtypes.from_onnx_name(name)


def _map_tensors(arg, value, keys_dtype, values_dtype):
    """A dict as its keys and values, each a 1-D FedInput."""
    if not isinstance(value, dict):
        raise _capi.GeonError("input '%s' is %s: pass a dict" % (arg.name, arg.type),
                              _capi.INVALID_ARGUMENT)
    # Lists take the declared element types (FedInput), and stay 1-D when empty.
    keys = _tensors.FedInput(arg.name + " keys", list(value.keys()), keys_dtype)
    values = _tensors.FedInput(arg.name + " values", list(value.values()), values_dtype)
    return [keys, values]


def _element_dtype(type_string):
    """The ONNX element type number in a type string ("seq(tensor(float))" -> 1)."""
    name = type_string[type_string.rfind("tensor(") + len("tensor("):].split(")")[0]
    return _dtypes.from_onnx_name(name)


def _fed_value(arg, value, keep):
    """A GeonValue for one input, its tensors kept alive by `keep`."""
    declared = _element_dtype(arg.type)
    holds_sequence = arg.type.startswith("seq(") or arg.type.startswith("optional(seq(")
    if arg.type.startswith("seq(map(") or arg.type.startswith("map("):
        if arg.type.startswith("map("):
            items, kind = _map_tensors(arg, value, _key_dtype(arg.type), declared), _capi.VALUE_MAP
        else:
            if not isinstance(value, (list, tuple)):
                raise _capi.GeonError("input '%s' is %s: pass a list of dicts" % (arg.name, arg.type),
                                      _capi.INVALID_ARGUMENT)
            items = [t for m in value for t in _map_tensors(arg, m, _key_dtype(arg.type), declared)]
            kind = _capi.VALUE_MAP_SEQUENCE
        tensors = (_capi.GeonTensor * max(len(items), 1))(*[i.tensor for i in items])
        keep.append((items, tensors))
        return _capi.GeonValue(kind, len(items), tensors)
    if value is None:
        if not arg.type.startswith("optional("):
            raise _capi.GeonError("input '%s' is %s: None is only for optionals" % (arg.name, arg.type),
                                  _capi.INVALID_ARGUMENT)
        return _capi.GeonValue(_capi.VALUE_NONE, 0, None)
    if holds_sequence:
        if not isinstance(value, (list, tuple)):
            raise _capi.GeonError("input '%s' is %s: pass a list of arrays" % (arg.name, arg.type),
                                  _capi.INVALID_ARGUMENT)
        items = [_tensors.FedInput(arg.name, v, declared) for v in value]
        kind = _capi.VALUE_SEQUENCE
    else:
        items = [_tensors.FedInput(arg.name, value, declared)]
        kind = _capi.VALUE_TENSOR
    tensors = (_capi.GeonTensor * max(len(items), 1))(*[i.tensor for i in items])
    keep.append((items, tensors))
    return _capi.GeonValue(kind, len(items), tensors)


def run(session, handle, output_names, input_feed):
    """run() for a model with sequence or optional inputs or outputs."""
    table = _capi.api()
    by_name = {a.name: a for a in session._inputs}
    keep = []
    names, values = [], []
    for name, value in input_feed.items():
        arg = by_name.get(name)
        if arg is None:  # the library names the model's inputs in its error
            values.append(_capi.GeonValue(_capi.VALUE_TENSOR, 1, None))
        elif is_value_type(arg.type):
            values.append(_fed_value(arg, value, keep))
        else:
            fed = _tensors.FedInput(name, value, arg.dtype)
            tensors = (_capi.GeonTensor * 1)(fed.tensor)
            keep.append((fed, tensors))
            values.append(_capi.GeonValue(_capi.VALUE_TENSOR, 1, tensors))
        names.append(name.encode("utf-8"))
    in_names = (ctypes.c_char_p * max(len(names), 1))(*names)
    in_values = (_capi.GeonValue * max(len(values), 1))(*values)
    if output_names:
        if isinstance(output_names, str):
            output_names = [output_names]
        outs = [str(n).encode("utf-8") for n in output_names]
        out_names = (ctypes.c_char_p * len(outs))(*outs)
    else:
        outs, out_names = [], None
    result = ctypes.c_void_p()
    _capi.check(
        table.run_values(handle, in_names, in_values, len(values), out_names, len(outs), ctypes.byref(result)),
        _capi.RUN,
    )
    owner = _tensors.ResultOwner(result.value, session._owner)
    return [_output(owner, i) for i in range(table.result_count(owner.handle))]


def _output(owner, index):
    """Output `index` as an array, a list of arrays (a sequence), None (an empty optional), a dict
    (a map) or a list of dicts (a sequence of maps)."""
    table = _capi.api()
    value = _capi.GeonValue()
    _capi.check(table.result_value(owner.handle, index, ctypes.byref(value)))
    if value.kind == _capi.VALUE_NONE:
        return None
    arrays = [_tensors.tensor_array(owner, value.tensors[k], index) for k in range(value.count)]
    if value.kind == _capi.VALUE_TENSOR:
        return arrays[0]
    if value.kind == _capi.VALUE_MAP:
        return dict(zip(arrays[0].tolist(), arrays[1].tolist()))
    if value.kind == _capi.VALUE_MAP_SEQUENCE:
        return [dict(zip(arrays[k].tolist(), arrays[k + 1].tolist())) for k in range(0, len(arrays), 2)]
    return arrays
