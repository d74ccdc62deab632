"""numpy arrays <-> GeonTensor. Inputs are passed in place when already C-contiguous, aligned
and native-endian (the library reads them, never writes); outputs stay in the GeonResult's
memory, which lives until the last array viewing it is gone.
"""

import ctypes
import math

import numpy as np

from . import _capi, _dtypes


class FedInput:
    """One input ready for run(): the GeonTensor and the objects its pointers point into."""

    def __init__(self, name, value, declared=None):
        # An array is passed as it is (a wrong dtype is the library's error to report); other
        # array-likes (lists, Python numbers) take the input's declared element type.
        if isinstance(value, np.ndarray):
            array = value
        elif declared is not None and declared != _dtypes.STRING:
            try:
                array = np.asarray(value, dtype=_dtypes.to_numpy(declared))
            except (TypeError, ValueError) as e:
                raise _capi.GeonError("input '%s': %s" % (name, e), _capi.INVALID_ARGUMENT) from None
        else:
            array = np.asarray(value, dtype=object if declared == _dtypes.STRING else None)
        if array.dtype.kind in "OUS":
            self._strings(name, array)
            return
        if not array.dtype.isnative:
            array = array.astype(array.dtype.newbyteorder("="))
        try:
            number = _dtypes.from_numpy(array.dtype)
        except ValueError as e:
            raise _capi.GeonError("input '%s': %s" % (name, e), _capi.INVALID_ARGUMENT) from None
        if not (array.flags.c_contiguous and array.flags.aligned):
            array = array.copy(order="C")  # copy() keeps rank 0, unlike ascontiguousarray
        data = _dtypes.pack(array, number)
        self.name = name
        self.number = number
        self.array = array
        self.data = data
        self.pointer = data.ctypes.data
        self.shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
        # The array converts to the pointer field as it is (no ctypes.cast).
        self.tensor = _capi.GeonTensor(
            dtype=number,
            rank=array.ndim,
            shape=self.shape,
            data=self.pointer,
            bytes=data.nbytes,
        )


    def _strings(self, name, array):
        """A string tensor: one GeonString per element over UTF-8 bytes this object keeps."""
        encoded = []
        for item in array.reshape(-1).tolist():
            if isinstance(item, str):
                encoded.append(item.encode("utf-8"))
            elif isinstance(item, (bytes, bytearray)):
                encoded.append(bytes(item))
            else:
                raise _capi.GeonError(
                    "input '%s': a string tensor holds %s, not str or bytes" % (name, type(item).__name__),
                    _capi.INVALID_ARGUMENT,
                )
        count = len(encoded)
        handles = (_capi.GeonString * max(count, 1))()
        for i, b in enumerate(encoded):
            handles[i].data = ctypes.cast(ctypes.c_char_p(b), ctypes.c_void_p).value if b else None
            handles[i].size = len(b)
        self.name = name
        self.number = _dtypes.STRING
        self.array = array
        self.data = (encoded, handles)
        self.pointer = ctypes.addressof(handles)
        self.shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
        self.tensor = _capi.GeonTensor(
            dtype=_dtypes.STRING,
            rank=array.ndim,
            shape=self.shape,
            data=self.pointer,
            bytes=count * ctypes.sizeof(_capi.GeonString),
        )


def string_array(tensor, shape, name):
    """A string output as a numpy object array of str (bytes where the text is not UTF-8)."""
    count = math.prod(shape)
    if tensor.bytes < count * ctypes.sizeof(_capi.GeonString) or (count and not tensor.data):
        raise _capi.GeonError(
            "output '%s': the library returned %d bytes for %d strings" % (name(), tensor.bytes, count),
            _capi.INTERNAL,
        )
    out = np.empty(count, dtype=object)
    if count:
        handles = (_capi.GeonString * count).from_address(tensor.data)
        for i in range(count):
            raw = ctypes.string_at(handles[i].data, handles[i].size) if handles[i].size else b""
            try:
                out[i] = raw.decode("utf-8")
            except UnicodeDecodeError:
                out[i] = raw
    return out.reshape(shape)


class ResultOwner:
    """Owns a GeonResult*; arrays over its memory keep this object (and the session) alive."""

    def __init__(self, handle, session_owner):
        self.handle = handle
        self.session_owner = session_owner

    def __del__(self):
        handle, self.handle = getattr(self, "handle", None), None
        if handle:
            try:
                _capi.api().release_result(handle)
            except Exception:  # interpreter shutdown: the library may be gone already
                pass


def result_array(owner, index):
    """Output `index` of a result as a numpy array (a view of the result's memory)."""
    # Run's hot path: the output's name is fetched only for an error message.
    table = _capi.api()
    tensor = _capi.GeonTensor()
    _capi.check(table.result_tensor(owner.handle, index, ctypes.byref(tensor)))
    return tensor_array(owner, tensor, index)


def tensor_array(owner, tensor, index):
    """A GeonTensor of output `index` (a result's tensor, or a sequence's element) as a numpy
    array over the result's memory."""
    table = _capi.api()

    def name():
        return _capi.text(table.result_name(owner.handle, index))

    if tensor.rank < 0:
        raise _capi.GeonError("output '%s': negative rank %d" % (name(), tensor.rank), _capi.INTERNAL)
    shape = tuple(tensor.shape[: tensor.rank]) if tensor.rank else ()
    if any(length < 0 for length in shape):
        message = "output '%s': negative length in shape %s" % (name(), list(shape))
        raise _capi.GeonError(message, _capi.INTERNAL)
    if tensor.dtype == _dtypes.STRING:
        # Copied out: the arrays outlive nothing of the result.
        return string_array(tensor, shape, name)
    try:
        dtype = _dtypes.to_numpy(tensor.dtype)
    except ValueError as e:
        raise _capi.GeonError("output '%s': %s" % (name(), e), _capi.UNSUPPORTED) from None
    count = math.prod(shape)
    if _dtypes.bits(tensor.dtype) < 8:
        expected = _dtypes.packed_bytes(tensor.dtype, count)
    else:
        expected = count * dtype.itemsize
    if tensor.bytes < expected or (expected and not tensor.data):
        raise _capi.GeonError(
            "output '%s': the library returned %d bytes for shape %s of %s (needs %d)"
            % (name(), tensor.bytes, list(shape), _dtypes.onnx_name(tensor.dtype), expected),
            _capi.INTERNAL,
        )
    if expected == 0:
        return np.empty(shape, dtype)
    buffer = (ctypes.c_uint8 * expected).from_address(tensor.data)
    buffer._owner = owner
    return _dtypes.unpack(np.frombuffer(buffer, np.uint8), tensor.dtype, shape)
