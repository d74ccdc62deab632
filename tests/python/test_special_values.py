"""Single ops fed NaN, infinities, signed zeros, huge and subnormal floats, against
onnx.reference: NaN where the reference gives NaN, the same infinities, the rest within a
relative 1e-5. Unary ops on every special value, binary ops on every pair, reductions and
softmax over rows holding them, integer edge cases.

Where geon departs from onnx.reference on purpose, the case says why and pins geon's own
result instead: float-to-integer casts saturate and map NaN to 0 (ONNX leaves the value to the
implementation; numpy's wraps), Softplus gives x where e^x overflows (the reference gives inf),
PRelu gives x for x = 0 whatever the slope (the spec's `f(x) = x for x >= 0`; the reference
computes slope * x there), Clip ignores a NaN bound (as ONNX Runtime), and max pooling gives NaN
for a window holding one (as ONNX's Max and np.max; the reference's MaxPool skips it)."""

import unittest
import warnings

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import _paths  # noqa: F401
import geon

SPECIAL = np.array([np.nan, -np.inf, np.inf, -1.5, -0.0, 0.0, 0.3, 2.0, 1e30, -1e30, 3.4e38, 1e-40],
                   np.float32)
ROWS = np.repeat(SPECIAL[:, None], len(SPECIAL), 1)  # ROWS[i, j] = SPECIAL[i]
COLS = ROWS.T.copy()  # COLS[i, j] = SPECIAL[j]: with ROWS, every pair

UNARY = ["Relu", "LeakyRelu", "Elu", "Selu", "Celu", "ThresholdedRelu", "HardSigmoid", "HardSwish",
         "Sigmoid", "Tanh", "Softsign", "Abs", "Neg", "Exp", "Log", "Sqrt", "Reciprocal",
         "Floor", "Ceil", "Round", "Sign", "Erf", "Sin", "Cos", "Atan", "Sinh", "Asinh", "Mish",
         "Gelu", "IsNaN", "Identity"]
BINARY = ["Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Mean", "Sum", "Equal", "Less", "Greater",
          "LessOrEqual", "GreaterOrEqual"]
REDUCE = ["ReduceMax", "ReduceMin", "ReduceSum", "ReduceMean", "ReduceProd", "ReduceL1", "ReduceL2",
          "ReduceLogSumExp", "ReduceSumSquare"]


def model(op, inputs, attrs, out_dtypes, opset=20):
    names = ["i%d" % k for k in range(len(inputs))]
    graph = helper.make_graph(
        [helper.make_node(op, names, ["o%d" % k for k in range(len(out_dtypes))], **attrs)], "g",
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape))
         for n, v in zip(names, inputs)],
        [helper.make_tensor_value_info("o%d" % k, helper.np_dtype_to_tensor_dtype(np.dtype(t)), None)
         for k, t in enumerate(out_dtypes)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def reference(op, inputs, attrs, opset=20):
    """onnx.reference's outputs (NumPy warns of the NaNs it makes; they are the point)."""
    feeds = {"i%d" % k: v for k, v in enumerate(inputs)}
    untyped = model(op, inputs, attrs, [np.float32], opset)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [np.asarray(o) for o in ReferenceEvaluator(untyped).run(None, feeds)]


def run_geon(op, inputs, attrs, out_dtypes, opset=20):
    m = model(op, inputs, attrs, out_dtypes, opset)
    feeds = {"i%d" % k: v for k, v in enumerate(inputs)}
    return geon.InferenceSession(m.SerializeToString()).run(None, feeds)


class SpecialValues(unittest.TestCase):
    def assert_same(self, got, want, what):
        got, want = np.asarray(got), np.asarray(want)
        self.assertEqual((got.shape, got.dtype), (want.shape, want.dtype), what)
        if want.dtype.kind != "f":
            np.testing.assert_array_equal(got, want, what)
            return
        same = (np.isnan(got) & np.isnan(want)) | (got == want) | np.isclose(got, want, rtol=1e-5,
                                                                              atol=1e-6)
        bad = np.argwhere(~same)
        self.assertEqual(len(bad), 0, "%s: first differences %s" % (what, [
            (tuple(i), float(got[tuple(i)]), float(want[tuple(i)])) for i in bad[:4]]))

    def check(self, op, inputs, attrs=None, opset=20):
        attrs = attrs or {}
        want = reference(op, inputs, attrs, opset)
        got = run_geon(op, inputs, attrs, [w.dtype for w in want], opset)
        for k, (g, w) in enumerate(zip(got, want)):
            self.assert_same(g, w, "%s %s output %d" % (op, attrs, k))

    def test_unary_ops_on_every_special_value(self):
        for op in UNARY:
            with self.subTest(op=op):
                self.check(op, [SPECIAL])
        with self.subTest(op="Softplus"):
            # log(1 + e^x) without the reference's overflow to inf for x past 88: x there.
            (got,) = run_geon("Softplus", [SPECIAL], {}, [np.float32])
            with np.errstate(invalid="ignore"):
                want = np.logaddexp(0.0, SPECIAL.astype(np.float64)).astype(np.float32)
            self.assert_same(got, want, "Softplus")
        with self.subTest(op="Shrink"):
            self.check("Shrink", [SPECIAL], {"lambd": 0.5, "bias": 0.1})
        with self.subTest(op="IsInf"):
            self.check("IsInf", [SPECIAL], {"detect_negative": 0})

    def test_binary_ops_on_every_pair(self):
        for op in BINARY:
            with self.subTest(op=op):
                self.check(op, [ROWS, COLS])
        with self.subTest(op="Mod fmod"):
            self.check("Mod", [ROWS, COLS], {"fmod": 1})
        with self.subTest(op="Where"):
            self.check("Where", [np.array([[True], [False]] * 6), ROWS, COLS])

    def test_reductions_and_softmax_over_rows_holding_them(self):
        for op in REDUCE:
            with self.subTest(op=op):
                self.check(op, [COLS], {"keepdims": 0})
        for op, attrs in [("ArgMax", {"axis": 1}), ("ArgMin", {"axis": 1}), ("Softmax", {"axis": 1}),
                          ("LogSoftmax", {"axis": 1}), ("Hardmax", {"axis": 1})]:
            with self.subTest(op=op):
                self.check(op, [COLS], attrs)
        with self.subTest(op="CumSum"):
            self.check("CumSum", [COLS, np.array(1, np.int64)])
        with self.subTest(op="MatMul"):
            self.check("MatMul", [ROWS, COLS])

    def test_integer_edge_cases(self):
        a = np.array([[-7, 7, 0, -1, 2**31 - 1, -2**31]], np.int32)
        b = np.array([[2], [-3], [1]], np.int32)
        for op, attrs in [("Add", {}), ("Sub", {}), ("Mul", {}), ("Div", {}), ("Max", {}), ("Min", {}),
                          ("Mod", {}), ("Mod", {"fmod": 1})]:
            with self.subTest(op=op, attrs=attrs):
                self.check(op, [a, b], attrs)

    # ---- where geon departs from onnx.reference on purpose ----

    def test_float_to_integer_casts_saturate_and_map_nan_to_zero(self):
        def saturated(v, info):
            if np.isnan(v):
                return 0
            return int(min(max(np.trunc(v), info.min), info.max)) if np.isfinite(v) else (
                info.max if v > 0 else info.min)
        for dtype in [np.int8, np.uint8, np.int32, np.int64]:
            with self.subTest(dtype=dtype.__name__):
                info = np.iinfo(dtype)
                to = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
                (got,) = run_geon("Cast", [SPECIAL], {"to": to}, [dtype])
                self.assertEqual([int(g) for g in got], [saturated(float(v), info) for v in SPECIAL])

    def test_prelu_keeps_zero_whatever_the_slope(self):
        x = np.repeat(np.array([-0.0, 0.0, -2.0, 3.0], np.float32)[:, None], 3, 1)
        slope = np.array([np.nan, np.inf, 0.5], np.float32)
        (got,) = run_geon("PRelu", [x, slope], {}, [np.float32])
        with np.errstate(invalid="ignore"):
            want = np.where(x < 0, x * slope, x)  # the spec: f(x) = x for x >= 0
        self.assert_same(got, want, "PRelu")

    def test_clip_ignores_a_nan_bound_as_onnxruntime(self):
        nan = np.array(np.nan, np.float32)
        for lo, hi, want in [(nan, np.array(1, np.float32), np.minimum(SPECIAL, 1)),
                             (np.array(-1, np.float32), nan, np.maximum(SPECIAL, -1))]:
            (got,) = run_geon("Clip", [SPECIAL, lo, hi], {}, [np.float32])
            self.assert_same(got, want, "Clip")

    def test_max_pooling_gives_nan_for_a_window_holding_one(self):
        x = np.random.default_rng(0).standard_normal((1, 2, 5, 5)).astype(np.float32)
        x[0, 0, 2, 2] = np.nan
        (got,) = run_geon("MaxPool", [x], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}, [np.float32], 17)
        windows = np.zeros((1, 2, 5, 5), bool)
        windows[0, 0, 1:4, 1:4] = True  # the outputs whose 3x3 window reads (2, 2)
        np.testing.assert_array_equal(np.isnan(got), windows)
        (pooled,) = run_geon("GlobalMaxPool", [x], {}, [np.float32], 17)
        np.testing.assert_array_equal(np.isnan(pooled).ravel(), [True, False])


if __name__ == "__main__":
    unittest.main()
