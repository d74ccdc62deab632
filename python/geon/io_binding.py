"""OrtValue and IOBinding as onnxruntime's, for host (cpu) memory: inputs bound to arrays or
raw host pointers, outputs allocated by the library or written in place into caller memory
(the C ABI's run writes an output straight into a caller buffer). Device (cuda) buffers are
refused with NotImplemented: binding device memory comes with geon's CUDA I/O work.
"""

import ctypes
import math

import numpy as np

from . import _dtypes, _errors


def _host_only(device_type, what):
    device = str(device_type).lower() if device_type is not None else "cpu"
    if device != "cpu":
        raise _errors.NotImplemented(
            "%s on device %r: geon binds host ('cpu') memory only; device buffers come with "
            "the CUDA I/O binding issue (CUDA kernels already run with host buffers)" % (what, device_type),
            _errors.UNSUPPORTED,
        )


def _numpy_dtype(element_type):
    """A numpy dtype from what onnxruntime accepts as an element type: a numpy type or dtype,
    or an ONNX TensorProto number."""
    if isinstance(element_type, (int, np.integer)) and not isinstance(element_type, bool):
        return np.dtype(_dtypes.to_numpy(int(element_type)))
    return np.dtype(element_type)


def _host_array(pointer, element_type, shape):
    """A numpy array over caller host memory at `pointer` (no copy)."""
    dtype = _numpy_dtype(element_type)
    shape = tuple(int(d) for d in shape)
    count = math.prod(shape)
    if count == 0:
        return np.empty(shape, dtype)
    if not pointer:
        raise _errors.InvalidArgument("buffer_ptr is null", _errors.INVALID_ARGUMENT)
    buffer = (ctypes.c_uint8 * (count * dtype.itemsize)).from_address(int(pointer))
    return np.frombuffer(buffer, dtype).reshape(shape)


class OrtValue:
    """A tensor in host memory, as onnxruntime's OrtValue: numpy() shares its memory."""

    def __init__(self, array, owner=None):
        self._array = array
        self._owner = owner  # keeps the memory under the array alive (a run's result)

    @staticmethod
    def ortvalue_from_numpy(numpy_obj, device_type="cpu", device_id=0, vendor_id=-1):
        """An OrtValue over the array's memory (a C-contiguous copy when it is not)."""
        del device_id, vendor_id
        _host_only(device_type, "OrtValue.ortvalue_from_numpy")
        array = numpy_obj if isinstance(numpy_obj, np.ndarray) else np.asarray(numpy_obj)
        if not array.flags.c_contiguous:
            array = np.ascontiguousarray(array)
        return OrtValue(array)

    @staticmethod
    def ortvalue_from_shape_and_type(shape, element_type, device_type="cpu", device_id=0, vendor_id=-1):
        """A new zero-filled tensor of that shape and element type."""
        del device_id, vendor_id
        _host_only(device_type, "OrtValue.ortvalue_from_shape_and_type")
        return OrtValue(np.zeros([int(d) for d in shape], _numpy_dtype(element_type)))

    def numpy(self):
        return self._array

    def __array__(self, dtype=None, copy=None):
        # lets an OrtValue stand wherever an array is fed (np.asarray(value))
        return self._array if dtype is None else self._array.astype(dtype, copy=bool(copy))

    def shape(self):
        return list(self._array.shape)

    def element_type(self):
        """The ONNX element type number (1 for float)."""
        return _dtypes.from_numpy(self._array.dtype)

    def data_type(self):
        """"tensor(float)" and the like."""
        return _dtypes.type_string(self.element_type())

    def device_name(self):
        return "cpu"

    def is_tensor(self):
        return True

    def has_value(self):
        return True

    def is_tensor_sequence(self):
        return False

    def is_sparse_tensor(self):
        return False

    def data_ptr(self):
        return self._array.ctypes.data

    def tensor_size_in_bytes(self):
        return self._array.nbytes

    def update_inplace(self, np_arr):
        """Copies np_arr's values into this tensor's memory (same element count)."""
        source = np.asarray(np_arr)
        if source.size != self._array.size:
            raise _errors.InvalidArgument(
                "update_inplace: %d elements given for a tensor of %d" % (source.size, self._array.size),
                _errors.INVALID_ARGUMENT,
            )
        self._array.reshape(-1)[...] = source.reshape(-1).astype(self._array.dtype, copy=False)

    def __repr__(self):
        return "OrtValue(shape=%s, type=%s, device=cpu)" % (self.shape(), self.data_type())


class IOBinding:
    """Inputs and outputs bound ahead of InferenceSession.run_with_iobinding, as onnxruntime's
    IOBinding. An output bound to caller memory (a buffer_ptr or an OrtValue) is written there
    in place; the others are allocated by the run and read with get_outputs()."""

    def __init__(self, session):
        self._session = session
        self._inputs = {}  # name -> numpy array (host memory the run reads in place)
        self._outputs = []  # [(name, OrtValue or None)] in binding order
        self._values = []  # the last run's outputs, as OrtValues

    def _input_name(self, name):
        if name not in self._session._feedable:
            raise RuntimeError("Failed to find NodeArg with name: %s in the def list" % name)
        return name

    def _output_name(self, name):
        if name not in self._session._produced:
            raise RuntimeError("Failed to find NodeArg with name: %s in the def list" % name)
        return name

    # --- inputs ----------------------------------------------------------------------------
    def bind_cpu_input(self, name, arr_on_cpu):
        """Binds a host array; the run reads its memory as it is then (no copy)."""
        array = arr_on_cpu if isinstance(arr_on_cpu, np.ndarray) else np.asarray(arr_on_cpu)
        self._inputs[self._input_name(name)] = array

    def bind_input(self, name, device_type, device_id, element_type, shape, buffer_ptr):
        """Binds host memory at buffer_ptr holding a tensor of that element type and shape."""
        del device_id
        _host_only(device_type, "bind_input('%s')" % name)
        self._inputs[self._input_name(name)] = _host_array(buffer_ptr, element_type, shape)

    def bind_ortvalue_input(self, name, ortvalue):
        self._inputs[self._input_name(name)] = ortvalue.numpy()

    def clear_binding_inputs(self):
        self._inputs = {}

    def synchronize_inputs(self):
        """Nothing to wait for: host memory is read during the run."""

    # --- outputs ---------------------------------------------------------------------------
    def bind_output(self, name, device_type="cpu", device_id=0, element_type=None, shape=None, buffer_ptr=None):
        """Binds an output: with buffer_ptr (and element_type, shape), the run writes it into
        that host memory; without, the run allocates it."""
        del device_id
        _host_only(device_type, "bind_output('%s')" % name)
        self._output_name(name)
        value = None
        if buffer_ptr is not None:
            if element_type is None or shape is None:
                raise _errors.InvalidArgument(
                    "bind_output('%s'): a buffer_ptr needs element_type and shape" % name,
                    _errors.INVALID_ARGUMENT,
                )
            value = OrtValue(_host_array(buffer_ptr, element_type, shape))
        self._bind_out(name, value)

    def bind_ortvalue_output(self, name, ortvalue):
        """Binds an output to an OrtValue's memory: the run writes into it."""
        self._bind_out(self._output_name(name), ortvalue)

    def _bind_out(self, name, value):
        self._outputs = [(n, v) for n, v in self._outputs if n != name] + [(name, value)]

    def clear_binding_outputs(self):
        self._outputs = []

    def synchronize_outputs(self):
        """Nothing to wait for: outputs are complete when the run returns."""

    def get_outputs(self):
        """The last run's outputs as OrtValues, in binding order."""
        return list(self._values)

    def copy_outputs_to_cpu(self):
        """The last run's outputs as numpy arrays (copies)."""
        return [v.numpy().copy() for v in self._values]

    def get_outputs_as_ortvaluevector(self):
        return self.get_outputs()
