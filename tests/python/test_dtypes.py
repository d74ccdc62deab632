"""geon/_dtypes.py: the ONNX <-> numpy element type table agrees with onnx's own, and sub-byte
packing follows ONNX's order (element i in the low bits of its byte first). No library needed."""

import unittest

import numpy as np
import onnx
import onnx.helper

import _paths  # noqa: F401
from geon import _dtypes

try:
    import ml_dtypes
except ImportError:
    ml_dtypes = None


class DtypeTable(unittest.TestCase):
    def test_numpy_dtypes_agree_with_onnx_helper(self):
        for number in onnx.TensorProto.DataType.values():
            if number in (onnx.TensorProto.UNDEFINED, onnx.TensorProto.STRING):
                continue
            with self.subTest(number=number):
                try:
                    ours = _dtypes.to_numpy(number)
                except ValueError as e:
                    self.assertIsNone(ml_dtypes, "only ml_dtypes types may be missing: %s" % e)
                    continue
                self.assertEqual(ours, onnx.helper.tensor_dtype_to_np_dtype(number))
                self.assertEqual(_dtypes.from_numpy(ours), number)

    def test_type_strings_use_onnx_names(self):
        self.assertEqual(_dtypes.type_string(onnx.TensorProto.FLOAT), "tensor(float)")
        self.assertEqual(_dtypes.type_string(onnx.TensorProto.DOUBLE), "tensor(double)")
        self.assertEqual(_dtypes.type_string(onnx.TensorProto.FLOAT16), "tensor(float16)")
        self.assertEqual(_dtypes.type_string(onnx.TensorProto.BOOL), "tensor(bool)")
        for name, number in onnx.TensorProto.DataType.items():
            if number != onnx.TensorProto.UNDEFINED:
                self.assertEqual(_dtypes.onnx_name(number), name.lower())

    def test_unknown_dtypes_are_refused_by_name(self):
        with self.assertRaisesRegex(ValueError, "datetime64|M8"):
            _dtypes.from_numpy(np.dtype("datetime64[s]"))
        with self.assertRaisesRegex(ValueError, "99"):
            _dtypes.to_numpy(99)


@unittest.skipIf(ml_dtypes is None, "ml_dtypes is not installed")
class SubBytePacking(unittest.TestCase):
    def test_int4_packs_low_nibble_first(self):
        values = np.array([1, -2, 7], dtype=ml_dtypes.int4)
        packed = _dtypes.pack(values, onnx.TensorProto.INT4)
        self.assertEqual(list(packed), [0x01 | (0xE << 4), 0x07])

    def test_round_trip_every_sub_byte_type(self):
        rng = np.random.default_rng(7)
        for number in (
            onnx.TensorProto.INT4,
            onnx.TensorProto.UINT4,
            onnx.TensorProto.FLOAT4E2M1,
            onnx.TensorProto.INT2,
            onnx.TensorProto.UINT2,
        ):
            dtype = _dtypes.to_numpy(number)
            bits = _dtypes.bits(number)
            for count in (0, 1, 5, 8):
                with self.subTest(number=number, count=count):
                    codes = rng.integers(0, 1 << bits, size=count, dtype=np.uint8)
                    values = codes.view(dtype).reshape(count)
                    packed = _dtypes.pack(values, number)
                    self.assertEqual(packed.nbytes, _dtypes.packed_bytes(number, count))
                    back = _dtypes.unpack(packed, number, (count,))
                    np.testing.assert_array_equal(back.view(np.uint8), codes)

    def test_onnx_packing_agrees(self):
        values = np.array([3, -4, 0, 5, -1], dtype=ml_dtypes.int4)
        tensor = onnx.helper.make_tensor("t", onnx.TensorProto.INT4, [5], values.astype(np.int8))
        onnx_bytes = tensor.raw_data or bytes(tensor.int32_data)
        self.assertEqual(bytes(_dtypes.pack(values, onnx.TensorProto.INT4)), onnx_bytes)


if __name__ == "__main__":
    unittest.main()
