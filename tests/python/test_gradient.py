"""ai.onnx.preview.training.Gradient through geon, against central finite differences of the
forward graph evaluated by onnx.reference in float64 (an independent reference: no derivative
rule is shared with geon's importer).

- Broadcast operands get their gradients summed back to their own shapes; zs enter the forward
  computation but are not differentiated.
- Every op with a derivative rule, in chains, including MatMul with broadcast batch dims,
  Transpose and Reshape.
- Gradient fed values other than the named ones recomputes the forward graph at those values.
- A y that does not depend on an x gives zeros, the gradient of x itself ones; a non-scalar y is
  differentiated as the sum of its entries.
- Ops without a derivative rule and names the graph does not define are clean errors.
"""

import unittest

import numpy as np
import onnx.reference
from onnx import TensorProto, helper

import geon

FLOAT, DOUBLE = TensorProto.FLOAT, TensorProto.DOUBLE
TRAINING = "ai.onnx.preview.training"


def _model(forward, inputs, y, xs, zs=(), grad_inputs=None, elem=FLOAT):
    """inputs: {name: shape}. The Gradient node reads grad_inputs (default: xs then zs)."""
    grad_inputs = list(grad_inputs or list(xs) + list(zs))
    grads = ["d_" + x for x in xs]
    node = helper.make_node("Gradient", grad_inputs, grads, domain=TRAINING, xs=list(xs), y=y)
    if zs:
        node.attribute.append(helper.make_attribute("zs", list(zs)))
    graph = helper.make_graph(
        forward + [node], "g",
        [helper.make_tensor_value_info(n, elem, s) for n, s in inputs.items()],
        [helper.make_tensor_value_info(y, elem, None)] +
        [helper.make_tensor_value_info(g, elem, None) for g in grads])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid(TRAINING, 1)])


def _forward_only(forward, inputs, y):
    graph = helper.make_graph(forward, "f",
                              [helper.make_tensor_value_info(n, DOUBLE, s) for n, s in inputs.items()],
                              [helper.make_tensor_value_info(y, DOUBLE, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _finite_difference(forward, inputs, y, feed, x, h=1e-6):
    """d sum(y) / d feed[x], by central differences in float64."""
    ref = onnx.reference.ReferenceEvaluator(_forward_only(forward, inputs, y))
    base = {
k: v.astype(np.float64) for k, v in feed.items()}
    grad = np.zeros_like(base[x])
    for i in np.ndindex(*base[x].shape):
        plus, minus = dict(base), dict(base)
        plus[x] = base[x].copy()
        minus[x] = base[x].copy()
        plus[x][i] += h
        minus[x][i] -= h
        grad[i] = (ref.run(None, plus)[0].sum() - ref.run(None, minus)[0].sum()) / (2 * h)
    return grad


class GradientTest(unittest.TestCase):
    def check(self, forward, inputs, y, xs, zs=(), feed=None, seed=0, positive=False):
        rng = np.random.default_rng(seed)
        if feed is None:
            feed = {
n: rng.uniform(0.5 if positive else -1.0, 1.5 if positive else 1.0, s)
                    .astype(np.float32) for n, s in inputs.items()}
        model = _model(forward, inputs, y, xs, zs)
        outs = geon.InferenceSession(model.SerializeToString()).run(None, feed)
        for k, x in enumerate(xs):
            with self.subTest(x=x):
                want = _finite_difference(forward, inputs, y, feed, x)
                self.assertEqual(outs[1 + k].shape, feed[x].shape)
                np.testing.assert_allclose(outs[1 + k], want, rtol=1e-3, atol=1e-4)
        return outs

    def test_broadcast_operands_get_gradients_summed_to_their_shapes(self):
        forward = [helper.make_node("Add", ["a", "b"], ["s"]),
                   helper.make_node("Mul", ["s", "a"], ["m"]),
                   helper.make_node("Div", ["c", "b"], ["q"]),
                   helper.make_node("Sub", ["m", "q"], ["y"])]
        self.check(forward, {"a": [3, 4], "b": [1, 4], "c": [2, 3, 4]}, "y", ["a", "b", "c"])

    def test_zs_enter_the_forward_graph_but_are_not_differentiated(self):
        forward = [helper.make_node("Mul", ["a", "z"], ["y"])]
        self.check(forward, {"a": [5], "z": [5]}, "y", ["a"], zs=["z"])

    def test_every_unary_rule_in_a_chain(self):
        forward = [helper.make_node("Sqrt", ["x"], ["r"]),
                   helper.make_node("Log", ["r"], ["l"]),
                   helper.make_node("Exp", ["l"], ["e"]),
                   helper.make_node("Tanh", ["e"], ["t"]),
                   helper.make_node("Sigmoid", ["t"], ["s"]),
                   helper.make_node("Neg", ["s"], ["n"]),
                   helper.make_node("Identity", ["n"], ["i"]),
                   helper.make_node("Add", ["i", "w"], ["u"]),  # both signs reach the Relu
                   helper.make_node("Relu", ["u"], ["v"]),
                   helper.make_node("Sum", ["v", "x", "w"], ["y"])]
        self.check(forward, {"x": [2, 6], "w": [2, 6]}, "y", ["x", "w"], positive=True)

    def test_matmul_with_broadcast_batch_then_transpose_and_reshape(self):
        shape = helper.make_tensor("shape", TensorProto.INT64, [2], [2, 15])
        forward = [helper.make_node("MatMul", ["a", "w"], ["m"]),
                   helper.make_node("Transpose", ["m"], ["t"], perm=[0, 2, 1]),
                   helper.make_node("Constant", [], ["shape"], value=shape),
                   helper.make_node("Reshape", ["t", "shape"], ["r"]),
                   helper.make_node("Mul", ["r", "r"], ["y"])]
        self.check(forward, {"a": [2, 3, 4], "w": [4, 5]}, "y", ["a", "w"])

    def test_gradient_at_other_values_recomputes_the_forward_graph(self):
        forward = [helper.make_node("Mul", ["a", "b"], ["m"]),
                   helper.make_node("Add", ["m", "a"], ["y"])]
        rng = np.random.default_rng(3)
        a, b, a2, b2 = (rng.standard_normal(4).astype(np.float32) for _ in range(4))
        inputs = {"a": [4], "b": [4], "a2": [4], "b2": [4]}
        model = _model(forward, inputs, "y", ["a", "b"], grad_inputs=["a2", "b2"])
        outs = geon.InferenceSession(model.SerializeToString()).run(
            None, {"a": a, "b": b, "a2": a2, "b2": b2})
        np.testing.assert_allclose(outs[0], a * b + a, rtol=1e-6)
        for k, x in enumerate(["a", "b"]):
            want = _finite_difference(forward, {"a": [4], "b": [4]}, "y", {"a": a2, "b": b2}, x)
            np.testing.assert_allclose(outs[1 + k], want, rtol=1e-3, atol=1e-4)

    def test_unused_input_gives_zeros_and_y_itself_gives_ones(self):
        forward = [helper.make_node("Add", ["a", "a"], ["y"])]
        model = _model(forward, {"a": [3], "b": [2, 2]}, "y", ["b", "y"],
                       grad_inputs=["b", "y"])
#y named in xs : its own value is the input, and dy / dy is ones.
        feed = {"a": np.arange(3, dtype=np.float32), "b": np.ones((2, 2), np.float32)}
        outs = geon.InferenceSession(model.SerializeToString()).run(None, feed)
        np.testing.assert_array_equal(outs[1], np.zeros((2, 2), np.float32))
        np.testing.assert_array_equal(outs[2], np.ones(3, np.float32))

    def test_op_without_a_derivative_is_refused_naming_it(self):
        forward = [helper.make_node("Softmax", ["a"], ["y"], name="soft")]
        model = _model(forward, {"a": [3]}, "y", ["a"])
        with self.assertRaises(geon.GeonError) as caught:
            geon.InferenceSession(model.SerializeToString())
        self.assertIn("Softmax", str(caught.exception))
        self.assertIn("soft", str(caught.exception))

    def test_undefined_name_is_refused(self):
        forward = [helper.make_node("Neg", ["a"], ["y"])]
        model = _model(forward, {"a": [3]}, "y", ["a"])
        model.graph.node[-1].attribute[0].strings[0] = b"nowhere"
        with self.assertRaises(geon.GeonError) as caught:
            geon.InferenceSession(model.SerializeToString())
        self.assertIn("nowhere", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
