"""Element types: ONNX TensorProto.DataType numbers <-> numpy dtypes <-> "tensor(...)" names.

bfloat16, the float8 family and the sub-byte types need ml_dtypes (used when installed).
Sub-byte types (int4, uint4, float4e2m1, int2, uint2) are packed in ONNX order at the C ABI:
element i sits in the low bits of its byte first, so they are packed and unpacked here.
"""

import numpy as np

try:
    import ml_dtypes
except ImportError:  # optional: without it those element types are refused by name
    ml_dtypes = None

# number: (ONNX name, numpy dtype name or None for ml_dtypes, ml_dtypes attribute, bits)
_TABLE = {
    1: ("float", "float32", None, 32),
    2: ("uint8", "uint8", None, 8),
    3: ("int8", "int8", None, 8),
    4: ("uint16", "uint16", None, 16),
    5: ("int16", "int16", None, 16),
    6: ("int32", "int32", None, 32),
    7: ("int64", "int64", None, 64),
    8: ("string", None, None, 0),
    9: ("bool", "bool", None, 8),
    10: ("float16", "float16", None, 16),
    11: ("double", "float64", None, 64),
    12: ("uint32", "uint32", None, 32),
    13: ("uint64", "uint64", None, 64),
    14: ("complex64", "complex64", None, 64),
    15: ("complex128", "complex128", None, 128),
    16: ("bfloat16", None, "bfloat16", 16),
    17: ("float8e4m3fn", None, "float8_e4m3fn", 8),
    18: ("float8e4m3fnuz", None, "float8_e4m3fnuz", 8),
    19: ("float8e5m2", None, "float8_e5m2", 8),
    20: ("float8e5m2fnuz", None, "float8_e5m2fnuz", 8),
    21: ("uint4", None, "uint4", 4),
    22: ("int4", None, "int4", 4),
    23: ("float4e2m1", None, "float4_e2m1fn", 4),
    24: ("float8e8m0", None, "float8_e8m0fnu", 8),
    25: ("uint2", None, "uint2", 2),
    26: ("int2", None, "int2", 2),
}

STRING = 8


def onnx_name(number):
    """"float" for 1; "dtype(N)" for numbers geon's table does not know."""
    entry = _TABLE.get(number)
    return entry[0] if entry else "dtype(%d)" % number


def from_onnx_name(name):
    """1 for "float"; ValueError for a name geon's table does not know."""
    for number, entry in _TABLE.items():
        if entry[0] == name:
            return number
    raise ValueError("unknown ONNX element type '%s'" % name)


def type_string(number):
    """The NodeArg type string, as onnxruntime spells it: "tensor(float)"."""
    return "tensor(%s)" % onnx_name(number)


def bits(number):
    entry = _TABLE.get(number)
    return entry[3] if entry else 0


# Memos of to_numpy and from_numpy: both run for every input and output of every Run.
_TO_NUMPY = {}
_FROM_NUMPY = {}


def to_numpy(number):
    """The numpy dtype for an ONNX element type, or a ValueError saying why there is none."""
    dtype = _TO_NUMPY.get(number)
    if dtype is None:
        dtype = _TO_NUMPY[number] = _to_numpy(number)
    return dtype


def _to_numpy(number):
    entry = _TABLE.get(number)
    if entry is None:
        raise ValueError("element type %d is not an ONNX tensor element type" % number)
    name, np_name, ml_name, _ = entry
    if np_name is not None:
        return np.dtype(np_name)
    if ml_name is None:
        raise ValueError("element type %s has no numpy form in geon's Python package" % name)
    if ml_dtypes is None:
        raise ValueError("element type %s needs the ml_dtypes package (pip install ml_dtypes)" % name)
    return np.dtype(getattr(ml_dtypes, ml_name))


def from_numpy(dtype):
    """The ONNX element type number of a numpy dtype, or a ValueError naming it."""
    dtype = np.dtype(dtype)
    number = _FROM_NUMPY.get(dtype)
    if number is None:
        number = _FROM_NUMPY[dtype] = _from_numpy(dtype)
    return number


def _from_numpy(dtype):
    for number, (_, np_name, ml_name, _) in _TABLE.items():
        if np_name is not None and dtype == np.dtype(np_name):
            return number
        if ml_name is not None and ml_dtypes is not None and dtype == np.dtype(getattr(ml_dtypes, ml_name)):
            return number
    raise ValueError("numpy dtype %s has no ONNX element type" % dtype)


def packed_bytes(number, count):
    """Bytes that `count` elements take at the C ABI (sub-byte types packed)."""
    b = bits(number)
    return (count * b + 7) // 8


def pack(array, number):
    """The bytes of a C-contiguous array as the C ABI wants them: sub-byte codes packed."""
    b = bits(number)
    if b >= 8:
        return array
    per_byte = 8 // b
    codes = array.reshape(-1).view(np.uint8) & ((1 << b) - 1)
    pad = (-codes.size) % per_byte
    if pad:
        codes = np.concatenate([codes, np.zeros(pad, np.uint8)])
    codes = codes.reshape(-1, per_byte)
    packed = np.zeros(codes.shape[0], np.uint8)
    for k in range(per_byte):
        packed |= codes[:, k] << np.uint8(k * b)
    return packed


def unpack(raw, number, shape):
    """An array of `shape` from C ABI bytes (a uint8 array), sub-byte codes unpacked."""
    dtype = to_numpy(number)
    b = bits(number)
    if b >= 8:
        return raw.view(dtype).reshape(shape)
    per_byte = 8 // b
    count = int(np.prod(shape, dtype=np.int64))
    shifts = (np.arange(per_byte, dtype=np.uint8) * np.uint8(b))[None, :]
    codes = (raw[:, None] >> shifts) & np.uint8((1 << b) - 1)
    return codes.reshape(-1)[:count].copy().view(dtype).reshape(shape)
