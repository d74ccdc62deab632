"""Small ONNX models built in the tests with onnx.helper (seeded weights), so that the Python
tests depend on no committed file."""

import numpy as np
import onnx
import onnx.helper
import onnx.numpy_helper

FLOAT = onnx.TensorProto.FLOAT
# Pinned rather than onnx.helper's default, which newer onnx releases raise past what the
# onnxruntime beside them reads (onnx 1.23 writes IR 14; onnxruntime 1.2x reads up to 13).
IR_VERSION = 10


def _model(graph, opset):
    return onnx.helper.make_model(
        graph, opset_imports=[onnx.helper.make_opsetid("", opset)], ir_version=IR_VERSION
    )


def mlp(seed=0, features=16, hidden=32, classes=8, opset=17):
    """x[batch, features] -> MatMul+Add -> Relu ("hidden") -> MatMul+Add -> "y"[batch, classes].
    Two outputs, so that tests can ask for a subset."""
    rng = np.random.default_rng(seed)
    weights = {
        "w1": (rng.standard_normal((features, hidden)) / np.sqrt(features)).astype(np.float32),
        "b1": (rng.standard_normal(hidden) * 0.1).astype(np.float32),
        "w2": (rng.standard_normal((hidden, classes)) / np.sqrt(hidden)).astype(np.float32),
        "b2": (rng.standard_normal(classes) * 0.1).astype(np.float32),
    }
    nodes = [
        onnx.helper.make_node("MatMul", ["x", "w1"], ["h0"], name="fc1"),
        onnx.helper.make_node("Add", ["h0", "b1"], ["h1"], name="fc1_bias"),
        onnx.helper.make_node("Relu", ["h1"], ["hidden"], name="relu"),
        onnx.helper.make_node("MatMul", ["hidden", "w2"], ["y0"], name="fc2"),
        onnx.helper.make_node("Add", ["y0", "b2"], ["y"], name="fc2_bias"),
    ]
    graph = onnx.helper.make_graph(
        nodes,
        "mlp",
        [onnx.helper.make_tensor_value_info("x", FLOAT, ["batch", features])],
        [
            onnx.helper.make_tensor_value_info("y", FLOAT, ["batch", classes]),
            onnx.helper.make_tensor_value_info("hidden", FLOAT, ["batch", hidden]),
        ],
        initializer=[onnx.numpy_helper.from_array(v, k) for k, v in weights.items()],
    )
    model = _model(graph, opset)
    onnx.checker.check_model(model)
    return model


def identity(elem_type, shape):
    """y = Identity(x) for one element type; shape may hold symbols."""
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Identity", ["x"], ["y"])],
        "identity",
        [onnx.helper.make_tensor_value_info("x", elem_type, shape)],
        [onnx.helper.make_tensor_value_info("y", elem_type, shape)],
    )
    return _model(graph, 21)


def conv(seed=0):
    """y = Conv(x[1, 2, 5, 5], w[3, 2, 3, 3]) with one node named "conv1" (cpu.dnnl only)."""
    rng = np.random.default_rng(seed)
    w = onnx.numpy_helper.from_array(rng.standard_normal((3, 2, 3, 3)).astype(np.float32), "w")
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Conv", ["x", "w"], ["y"], name="conv1")],
        "conv",
        [onnx.helper.make_tensor_value_info("x", FLOAT, [1, 2, 5, 5])],
        [onnx.helper.make_tensor_value_info("y", FLOAT, [1, 3, 3, 3])],
        [w],
    )
    return _model(graph, 17)


def add_scalar():
    """z = x + y on rank-0 float tensors."""
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Add", ["x", "y"], ["z"])],
        "add_scalar",
        [onnx.helper.make_tensor_value_info(n, FLOAT, []) for n in ("x", "y")],
        [onnx.helper.make_tensor_value_info("z", FLOAT, [])],
    )
    return _model(graph, 17)


def subtract():
    """z = x - y on float vectors of length "n": an op whose result tells its inputs apart."""
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Sub", ["x", "y"], ["z"])],
        "subtract",
        [onnx.helper.make_tensor_value_info(n, FLOAT, ["n"]) for n in ("x", "y")],
        [onnx.helper.make_tensor_value_info("z", FLOAT, ["n"])],
    )
    return _model(graph, 17)


def nonzero():
    """i = NonZero(x) on a float vector of length "n": an output whose shape depends on the
    input's values, not only its shape."""
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("NonZero", ["x"], ["i"])],
        "nonzero",
        [onnx.helper.make_tensor_value_info("x", FLOAT, ["n"])],
        [onnx.helper.make_tensor_value_info("i", onnx.TensorProto.INT64, [1, "k"])],
    )
    return _model(graph, 17)
