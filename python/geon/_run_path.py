"""Run's hot path: per-session caches that turn a feed into the C call's arrays, and a result
into numpy arrays, with as few Python and ctypes objects per call as possible. Anything out of
the ordinary (array-likes, wrong dtypes, copies, sub-byte types, odd results) goes through the
general code in _tensors, which owns every error message.

The quickest path (run_plain) takes a feed of plain numpy arrays whose names and shapes an
earlier run had: it packs the GeonTensor arrays into bytes objects and calls run through a
prototype of plain pointers and integers, which ctypes converts far faster than pointers to
structures (the library only reads the tensor arrays, so bytes' read-only buffers serve).

Quicker still, when the build made it beside the library: geon._fastrun (python/native/
fastrun.cc) does run_plain's work in C for the feed shaped as the last plain run (fast_run).
GEON_PYTHON_FASTRUN=0 keeps to the ctypes path.

Thread-safety: a session's RunPath is shared by every thread running it. What it caches is
read-only once built (the name and shape arrays the library only reads); each call builds its
own GeonTensor arrays and result structs.
"""

import ctypes
import importlib.machinery
import importlib.util
import math
import operator
import os
import struct

import numpy as np

from . import _capi, _dtypes, _tensors

# GeonTensor as struct packs it: int32 dtype, int32 rank, shape pointer, data pointer, uint64
# bytes, in native alignment. Packing one bytes object and copying it into a ctypes array costs
# far less than setting ctypes fields one by one.
_TENSOR = struct.Struct("iiPPQ")
_LAYOUT_MATCHES = ctypes.sizeof(_capi.GeonTensor) == _TENSOR.size and [
    getattr(_capi.GeonTensor, f).offset for f in ("dtype", "rank", "shape", "data", "bytes")
] == [0, 4, 8, 8 + ctypes.sizeof(ctypes.c_void_p), 8 + 2 * ctypes.sizeof(ctypes.c_void_p)]

# The caches below only grow with distinct feeds (key sets, shapes); past this size they start
# over, so a caller cycling through many shapes cannot grow them without bound.
_CACHE_LIMIT = 256


class _Packer:
    """struct layout and ctypes array type for n GeonTensors (memoized per n)."""

    def __init__(self, n):
        self.layout = struct.Struct("iiPPQ" * n)
        self.array_type = _capi.GeonTensor * n


_PACKERS = {}


def _packer(n):
    packer = _PACKERS.get(n)
    if packer is None:
        packer = _remember(_PACKERS, n, _Packer(n))
    return packer


def _byte_dtype(number):
    """The numpy dtype of an element type that is whole bytes per element, else None."""
    if number == _dtypes.STRING or _dtypes.bits(number) < 8:
        return None
    try:
        return _dtypes.to_numpy(number)
    except ValueError:
        return None


def _remember(cache, key, value):
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()  # callers hold their own references to what they looked up
    cache[key] = value
    return value


_FASTRUN = []  # [module or None] once looked for


def _fastrun():
    """geon._fastrun from beside the loaded library, or None (not built for this Python, or
    GEON_PYTHON_FASTRUN=0)."""
    if _FASTRUN:
        return _FASTRUN[0]
    module = None
    library = _capi.library_path()
    if library and os.environ.get("GEON_PYTHON_FASTRUN", "1") != "0" and _LAYOUT_MATCHES:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(os.path.dirname(os.path.abspath(library)), "_fastrun" + suffix)
            if not os.path.isfile(path):
                continue
            try:
                spec = importlib.util.spec_from_file_location("geon._fastrun", path)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                module.setup(np.ndarray, np.empty)
            except (ImportError, OSError):  # built for another Python, say
                module = None
            break
    _FASTRUN.append(module)
    return module


class RunPath:
    """The per-session state of Run's hot path (see the module comment)."""

    def __init__(self, inputs):
        table = _capi.api()
        # Function pointers read from the table once: each attribute read builds a new object.
        self.run = table.run
        self.result_count = table.result_count
        self.result_tensor = table.result_tensor
        # input name -> (ONNX element type, numpy dtype for in-place passing or None)
        self._declared = {i.name: (i.dtype, _byte_dtype(i.dtype)) for i in inputs}
        self._names = {}  # tuple of names -> (ctypes array of the encoded names, count)
        self._shapes = {}  # shape tuple -> (c_int64 array, its address)
        # (input names, input shapes, output names) -> what a run with those gave: its outputs'
        # element types and shapes, so that the next such run writes into arrays allocated here
        # with no result object to read back (run_known, run_plain). A plan is
        # (input names' address, count, output names' address or None, count,
        # [(element type, numpy dtype, rank, shape address, bytes)] per input or None when
        # run_plain cannot take them, input layout,
        # [(element type, numpy dtype, rank, shape, shape address, bytes)] per output, its packer,
        # what the addresses point into).
        self._plans = {}
        self.release_status = table.release_status
        # run() again, typed for run_plain: addresses as integers, tensor arrays as bytes.
        self._run_address = ctypes.cast(table.run, ctypes.c_void_p).value
        self._plain_run = _PLAIN_RUN(self._run_address)
        # geon._fastrun, and (output names, its plan, the plan it was made from) of the last
        # plain run, which fast_run tries first.
        self._fast = _fastrun()
        self._fast_last = None

    def fast_run(self, handle, input_feed, names):
        """run_plain in one C call (geon._fastrun) for a feed as the last plain run's; None
        when there is no such module, or the feed differs, or the run failed (the caller then
        takes run_plain, which reports errors the general way)."""
        last = self._fast_last
        if last is None or last[0] != names:
            return None
        result = self._fast.run(self._run_address, handle, input_feed, last[1])
        if result.__class__ is list:
            return result
        if result is not None:  # a failed run's status
            self.release_status(result)
            self._fast_last = None
        return None

    def name_array(self, names):
        """A c_char_p array of `names` (a tuple of str), memoized: the library only reads it."""
        found = self._names.get(names)
        if found is None:
            array = (ctypes.c_char_p * max(len(names), 1))(*[n.encode() for n in names])
            found = _remember(self._names, names, array)
        return found

    def _shape(self, shape):
        found = self._shapes.get(shape)
        if found is None:
            array = (ctypes.c_int64 * max(len(shape), 1))(*shape)
            found = _remember(self._shapes, shape, (array, ctypes.addressof(array)))
        return found

    def feed(self, input_feed):
        """(names array, GeonTensor array, count, keep-alive list) for the C run call."""
        declared = self._declared
        names = []
        words = []
        shapes = []  # the fed shapes, for run_known's key
        keep = []  # every object the tensors' pointers point into, held through the call
        for name, value in input_feed.items():
            if type(name) is not str:
                name = str(name)
            names.append(name)
            entry = declared.get(name)
            if entry is not None and type(value) is np.ndarray:
                number, dtype = entry
                array_dtype = value.dtype
                flags = value.flags
                if (
                    dtype is not None
                    and (array_dtype is dtype or array_dtype == dtype)
                    and flags.c_contiguous
                    and flags.aligned
                    and flags.writeable  # c_char.from_buffer wants a writable buffer
                    and value.nbytes
                    and _LAYOUT_MATCHES
                ):
                    shapes.append(value.shape)
                    shape, shape_address = self._shape(value.shape)
                    try:  # from_buffer reads the address without numpy's costly .ctypes object
                        data = ctypes.addressof(ctypes.c_char.from_buffer(value))
                    except (TypeError, ValueError, BufferError):  # dtypes numpy cannot export
                        data = value.ctypes.data
                    words += (number, value.ndim, shape_address, data, value.nbytes)
                    keep.append(shape)
                    keep.append(value)
                    continue
            fed = _tensors.FedInput(name, value, entry[0] if entry is not None else None)
            shapes.append(fed.array.shape)
            keep.append(fed)
            shape_address = ctypes.addressof(fed.shape)
            words += (fed.number, fed.array.ndim, shape_address, fed.pointer, fed.tensor.bytes)
        n = len(names)
        key = (tuple(names), tuple(shapes))
        if n == 0:
            return self.name_array(()), (_capi.GeonTensor * 1)(), 0, keep, key
        if _LAYOUT_MATCHES:
            packer = _packer(n)
            tensors = packer.array_type.from_buffer_copy(packer.layout.pack(*words))
        else:  # a platform where struct's layout differs from ctypes': build each struct
            tensors = (_capi.GeonTensor * n)()
            for k in range(n):
                dtype, rank, shape, data, nbytes = words[5 * k : 5 * k + 5]
                shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
                tensors[k] = _capi.GeonTensor(dtype, rank, shape, data, nbytes)
        return self.name_array(tuple(names)), tensors, n, keep, key

    def run_plain(self, handle, input_feed, names):
        """The outputs of a run fed only plain numpy arrays (of the declared element types,
        aligned, C-contiguous, writable: what c_char.from_buffer takes) with input names, shapes
        and output names (`names`, a tuple or None) that an earlier run had, written by the
        library into arrays allocated here; `handle` is the session's address. None when the
        feed is anything else or the library refuses the run (an output shape that depends on
        the values, any error): the caller then runs the general way, which reports errors."""
        try:
            key = (tuple(input_feed), tuple(map(_shape_of, input_feed.values())), names)
            plan = self._plans.get(key)
        except (AttributeError, TypeError):  # a value with no shape, or one that is no tuple
            return None
        if plan is None:
            return None
        in_names, n_in, out_names, n_out, inputs, in_layout, _, out_packer, _, fast_plan = plan
        if inputs is None:
            return None
        words = []
        for value, (number, want, rank, shape_address, nbytes) in zip(input_feed.values(), inputs):
            if type(value) is not np.ndarray:
                return None
            dtype = value.dtype
            if dtype is not want and dtype != want:
                return None
            try:  # refuses read-only and non-contiguous arrays
                data = _addressof(_from_buffer(value))
            except (TypeError, ValueError, BufferError):
                return None
            if data % dtype.alignment:
                return None
            words += (number, rank, shape_address, data, nbytes)
        arrays, out_words = _output_arrays(plan)
        status = self._plain_run(
            handle, in_names, in_layout.pack(*words), n_in, out_names, n_out, out_packer.layout.pack(*out_words), None
        )
        if status:
            self.release_status(status)
            self._plans.pop(key, None)
            return None
        if fast_plan is not None:
            self._fast_last = (names, fast_plan, plan)
        return arrays

    def run_known(self, handle, in_names, in_tensors, n_in, out_names, n_out, key):
        """The outputs of a run whose input shapes an earlier run had (remember()), written by
        the library into arrays allocated here: one call, no result object. None when the shapes
        are new, or when the library refuses the arrays (an output whose shape depends on the
        input values changed it): the caller then runs the general way."""
        plan = self._plans.get(key)
        if plan is None:
            return None
        arrays, words = _output_arrays(plan)
        packer = plan[7]
        outputs = packer.array_type.from_buffer_copy(packer.layout.pack(*words))
        status = self.run(handle, in_names, in_tensors, n_in, out_names, n_out, outputs, None)
        if status:
            self.release_status(status)
            self._plans.pop(key, None)
            return None
        return arrays

    def remember(self, key, arrays):
        """Keeps the outputs' element types and shapes for run_known and run_plain (plain
        numeric outputs only, none empty). `key` is (input names, input shapes, output names or
        None), as run() builds it."""
        if not _LAYOUT_MATCHES:
            return
        in_names, in_shapes, names = key
        outputs = []
        kept = []  # what the plan's addresses point into, held in case caches start over
        for array in arrays:
            number = _NUMBERS.get(array.dtype)
            if number is None or array.size == 0 or type(array) is not np.ndarray:
                return
            shape_array, shape_address = self._shape(array.shape)
            kept.append(shape_array)
            outputs.append((number, array.dtype, array.ndim, array.shape, shape_address, array.nbytes))
        inputs = []
        for name, shape in zip(in_names, in_shapes):
            number, dtype = self._declared.get(name, (None, None))
            if dtype is None or not math.prod(shape):
                inputs = None  # an input run_plain cannot take: run_known's plan only
                break
            shape_array, shape_address = self._shape(shape)
            kept.append(shape_array)
            inputs.append((number, dtype, len(shape), shape_address, math.prod(shape) * dtype.itemsize))
        in_array = self.name_array(in_names)
        out_array = self.name_array(names) if names else None
        kept += (in_array, out_array)
        fast_plan = None
        if self._fast is not None and inputs is not None:
            fast_plan = (
                ctypes.addressof(in_array),
                ctypes.addressof(out_array) if out_array is not None else 0,
                len(names) if names else 0,
                tuple((name, dtype, number, shape, address, nbytes)
                      for name, shape, (number, dtype, _, address, nbytes) in zip(in_names, in_shapes, inputs)),
                tuple((dtype, number, shape, address, nbytes) for number, dtype, _, shape, address, nbytes in outputs),
            )
        plan = (
            ctypes.addressof(in_array),
            len(in_names),
            ctypes.addressof(out_array) if out_array is not None else None,
            len(names) if names else 0,
            inputs,
            _packer(len(in_names)).layout,
            outputs,
            _packer(len(outputs)),
            kept,
            fast_plan,
        )
        _remember(self._plans, key, plan)
        if fast_plan is not None:
            self._fast_last = (names, fast_plan, plan)

    def outputs(self, owner):
        """The result's outputs as numpy arrays viewing its memory (owner keeps it alive)."""
        handle = owner.handle
        count = self.result_count(handle)
        arrays = []
        tensor = _capi.GeonTensor()
        pointer = ctypes.byref(tensor)
        for index in range(count):
            status = self.result_tensor(handle, index, pointer)
            if status:
                _capi.check(status)
            rank = tensor.rank
            dtype = _BYTE_DTYPES.get(tensor.dtype) or _byte_dtype_of(tensor.dtype)
            if dtype is None or rank < 0:
                arrays.append(_tensors.result_array(owner, index))
                continue
            shape = tuple(tensor.shape[:rank]) if rank else ()
            expected = math.prod(shape) * dtype.itemsize
            data = tensor.data
            if tensor.bytes < expected or (expected and not data):
                arrays.append(_tensors.result_array(owner, index))  # raises, naming the output
                continue
            try:  # a negative length makes ctypes or numpy raise ValueError
                if expected == 0:
                    arrays.append(np.empty(shape, dtype))
                    continue
                buffer = (ctypes.c_uint8 * expected).from_address(data)
                buffer._owner = owner
                arrays.append(np.ndarray(shape, dtype, buffer))
            except ValueError:
                arrays.append(_tensors.result_array(owner, index))  # raises, naming the output
        return arrays


def _output_arrays(plan):
    """Fresh arrays for a plan's outputs, and the GeonTensor words that hand them to run()."""
    arrays = []
    words = []
    for number, dtype, rank, shape, shape_address, nbytes in plan[6]:
        array = _empty(shape, dtype)
        arrays.append(array)
        words += (number, rank, shape_address, _addressof(_from_buffer(array)), nbytes)
    return arrays, words


# run(GeonSession*, const char* const*, const GeonTensor*, size_t, const char* const*, size_t,
# GeonTensor*, GeonResult**) with plain pointers: c_char_p passes a bytes object's own buffer.
_PLAIN_RUN = ctypes.CFUNCTYPE(
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_char_p,
    ctypes.c_size_t,
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_char_p,
    ctypes.c_void_p,
)
_addressof = ctypes.addressof
_from_buffer = ctypes.c_char.from_buffer
_empty = np.empty
_shape_of = operator.attrgetter("shape")

_BYTE_DTYPES = {}
# numpy dtype -> element type number, for the dtypes whose arrays run_known may hand out.
# (float, uint8, int8, uint16, int16, int32, int64, bool, float16, double, uint32, uint64)
_NUMBERS = {np.dtype(_dtypes.to_numpy(_n)): _n for _n in (1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13)}


def _byte_dtype_of(number):
    """_byte_dtype memoized by element type number (results repeat the same few)."""
    if number in _BYTE_DTYPES:
        return _BYTE_DTYPES[number]
    return _remember(_BYTE_DTYPES, number, _byte_dtype(number))
