"""Quantized models in QDQ form (onnxruntime.quantization.quantize_static, seeded calibration)
through geon, whose fuse_qdq pass runs their convolutions as geon.QConv on oneDNN's int8 kernels.

- A quantized convolution with 7-bit weights (reduce_range, so no pair of products can saturate
  the 16-bit sums of oneDNN's u8·s8 kernels on CPUs without VNNI) gives onnx.reference's bytes
  (the spec's semantics evaluated in float) except where float rounding decides a tie: those
  differ by one quantization step and are rare.
- A small ResNet-like CNN (stem, max pool, a residual block, a strided block with a projection,
  global average pool, Gemm), quantized like the benchmark's ResNet-50 (8-bit weights), agrees
  with ONNX Runtime: the same top class, and outputs within a few steps of the output's
  quantization (int8 runtimes differ legitimately by rounding, each difference a step that later
  layers may carry), judged by bench/compare.py's own int8 agreement check.
"""

import os
import sys
import tempfile
import unittest

import numpy as np
import onnx
import onnx.reference
import onnxruntime
from onnx import TensorProto, helper, numpy_helper
from onnxruntime import quantization

import _paths
import geon

sys.path.insert(0, os.path.join(_paths.REPO, "bench"))
import compare  # noqa: E402  (bench/compare.py's agreement checks)

_WORK = tempfile.TemporaryDirectory(prefix="geon_quantized_")


def _conv(name, x, cin, cout, k, stride, rng, inits):
    w = (rng.standard_normal((cout, cin, k, k)) * np.sqrt(2.0 / (cin * k * k))).astype(np.float32)
    b = (rng.standard_normal(cout) * 0.1).astype(np.float32)
    inits += [numpy_helper.from_array(w, name + "_w"), numpy_helper.from_array(b, name + "_b")]
    return helper.make_node("Conv", [x, name + "_w", name + "_b"], [name], name=name, kernel_shape=[k, k],
                            strides=[stride, stride], pads=[k // 2] * 4)


def _relu(x):
    return helper.make_node("Relu", [x], [x + "_relu"], name=x + "_relu")


def _small_cnn(path, seed):
    """[1, 3, 32, 32] -> stem 3x3 16 -> max pool -> residual block -> strided block with a 1x1
    projection -> global average pool -> Gemm to 10 classes."""
    rng = np.random.default_rng(seed)
    inits, nodes = [], []
    nodes += [_conv("stem", "x", 3, 16, 3, 1, rng, inits), _relu("stem")]
    nodes.append(helper.make_node("MaxPool", ["stem_relu"], ["pool"], kernel_shape=[3, 3], strides=[2, 2],
                                  pads=[1, 1, 1, 1]))
    nodes += [_conv("a1", "pool", 16, 16, 3, 1, rng, inits), _relu("a1"), _conv("a2", "a1_relu", 16, 16, 3, 1, rng, inits)]
    nodes += [helper.make_node("Add", ["a2", "pool"], ["a_sum"]), _relu("a_sum")]
    nodes += [_conv("b1", "a_sum_relu", 16, 32, 3, 2, rng, inits), _relu("b1"),
              _conv("b2", "b1_relu", 32, 32, 3, 1, rng, inits), _conv("proj", "a_sum_relu", 16, 32, 1, 2, rng, inits)]
    nodes += [helper.make_node("Add", ["b2", "proj"], ["b_sum"]), _relu("b_sum")]
    nodes.append(helper.make_node("GlobalAveragePool", ["b_sum_relu"], ["gap"]))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], axis=1))
    fc = (rng.standard_normal((10, 32)) * 0.3).astype(np.float32)
    inits += [numpy_helper.from_array(fc, "fc_w"), numpy_helper.from_array(np.zeros(10, np.float32), "fc_b")]
    nodes.append(helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["y"], transB=1))
    graph = helper.make_graph(nodes, "small_cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 32, 32])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)
    return path


def _single_conv(path, seed):
    """One 3x3 convolution 8 -> 16 with its bias and a Relu, on [1, 8, 12, 12]."""
    rng = np.random.default_rng(seed)
    inits = []
    nodes = [_conv("c", "x", 8, 16, 3, 1, rng, inits), _relu("c")]
    graph = helper.make_graph(nodes, "single_conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 12, 12])],
                              [helper.make_tensor_value_info("c_relu", TensorProto.FLOAT, [1, 16, 12, 12])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)
    return path


def _quantize(fp32, shape, reduce_range, seed):
    class Calibration(quantization.CalibrationDataReader):
        def __init__(self):
            self.rng = np.random.default_rng(seed)
            self.left = 4

        def get_next(self):
            if not self.left:
                return None
            self.left -= 1
            return {"x": self.rng.standard_normal(shape).astype(np.float32)}

    out = fp32.replace(".onnx", "_qdq%s.onnx" % ("_7bit" if reduce_range else ""))
    quantization.quantize_static(fp32, out, Calibration(), quant_format=quantization.QuantFormat.QDQ,
                                 activation_type=quantization.QuantType.QUInt8,
                                 weight_type=quantization.QuantType.QInt8, reduce_range=reduce_range)
    return out


def _output_scale(path):
    """The scale of the DequantizeLinear that makes the model's output."""
    model = onnx.load(path)
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    out = model.graph.output[0].name
    for node in model.graph.node:
        if node.op_type == "DequantizeLinear" and node.output[0] == out:
            return float(inits[node.input[1]])
    raise AssertionError("the output is not made by a DequantizeLinear")


def _qconv_count(session):
    return sum(1 for n in session.placement_report()["nodes"] if n["op"] == "geon.QConv" and n["set"] == "cpu.dnnl")


class QuantizedConvolution(unittest.TestCase):
    def test_seven_bit_weights_give_the_reference_bytes(self):
        fp32 = _single_conv(os.path.join(_WORK.name, "single_conv.onnx"), seed=1)
        model = _quantize(fp32, (1, 8, 12, 12), reduce_range=True, seed=2)
        session = geon.InferenceSession(model)
        self.assertEqual(_qconv_count(session), 1)
        # onnx.reference implements QuantizeLinear and DequantizeLinear from opset 19 only; they
        # compute 8-bit integers at 19 as at 17.
        proto = onnx.load(model)
        proto.opset_import[0].version = 19
        reference = onnx.reference.ReferenceEvaluator(proto)
        scale = _output_scale(model)
        rng = np.random.default_rng(3)
        differing = total = 0
        for _ in range(4):
            x = rng.standard_normal((1, 8, 12, 12)).astype(np.float32)
            got = session.run(None, {"x": x})[0]
            want = reference.run(None, {"x": x})[0]
            steps = np.abs(got.astype(np.float64) - want) / scale
            self.assertLessEqual(float(steps.max()), 1.0 + 1e-3)
            differing += int((steps > 0.5).sum())
            total += steps.size
        self.assertLessEqual(differing, total // 500)  # ties are rare


class QuantizedCnn(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        fp32 = _small_cnn(os.path.join(_WORK.name, "small_cnn.onnx"), seed=4)
        cls.model = _quantize(fp32, (1, 3, 32, 32), reduce_range=False, seed=5)
        cls.session = geon.InferenceSession(cls.model)
        options = onnxruntime.SessionOptions()
        cls.ort = onnxruntime.InferenceSession(cls.model, options, providers=["CPUExecutionProvider"])

    def test_every_convolution_and_the_gemm_run_on_int8_kernels(self):
        convs = sum(1 for n in onnx.load(self.model).graph.node if n.op_type == "Conv")
        self.assertEqual(convs, 6)
        self.assertEqual(_qconv_count(self.session), convs)
        ops = [(n["op"], n["set"]) for n in self.session.placement_report()["nodes"]]
        self.assertIn(("geon.QGemm", "cpu.dnnl"), ops)
        self.assertIn(("MaxPool", "cpu.dnnl"), ops)  # on the uint8 data
        for op in ("Conv", "Add", "Gemm"):  # both residual Adds went into QConvs
            self.assertNotIn(op, [o for o, _ in ops])

    def test_outputs_agree_with_onnxruntime(self):
        rng = np.random.default_rng(6)
        scale = _output_scale(self.model)
        for _ in range(8):
            x = rng.standard_normal((1, 3, 32, 32)).astype(np.float32)
            got = self.session.run(None, {"x": x})
            want = self.ort.run(None, {"x": x})
            ok, why = compare.agree_quantized(got, want, [scale])
            self.assertTrue(ok, why)


class AgreementCheck(unittest.TestCase):
    """bench/compare.py's int8 agreement: rounding differences pass, wrong results do not."""

    def setUp(self):
        rng = np.random.default_rng(7)
        self.step = 0.25
        self.want = np.round(rng.standard_normal((2, 100)) * 40) * self.step
        self.want[:, 3] += 60 * self.step  # a clear top-1

    def test_a_few_steps_of_rounding_agree(self):
        rng = np.random.default_rng(8)
        got = self.want + rng.integers(-2, 3, self.want.shape) * self.step * (rng.random(self.want.shape) < 0.2)
        self.assertTrue(compare.agree_quantized([got], [self.want], [self.step])[0])

    def test_wrong_results_do_not(self):
        shifted = self.want + 20 * self.step  # a lost zero point or bias
        self.assertFalse(compare.agree_quantized([shifted], [self.want], [self.step])[0])
        scaled = self.want * 1.3  # a wrong scale
        self.assertFalse(compare.agree_quantized([scaled], [self.want], [self.step])[0])
        swapped = self.want.copy()
        swapped[:, [3, 50]] = swapped[:, [50, 3]]  # another top-1
        self.assertFalse(compare.agree_quantized([swapped], [self.want], [self.step])[0])


if __name__ == "__main__":
    unittest.main()
