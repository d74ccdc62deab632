# Symbolic and unknown dimensions: a convolution over a batch of images whose batch size is a
# symbol, an input with an unnamed dynamic dim, and runs at several sizes.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

import onnxruntime as ort

rng = np.random.default_rng(3)
w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
bias = numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "bias")
graph = helper.make_graph(
    [
        helper.make_node("Conv", ["images", "w", "bias"], ["features"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["features"], ["activations"]),
        helper.make_node("Add", ["tokens", "tokens"], ["doubled"]),
    ],
    "dims",
    [
        helper.make_tensor_value_info("images", TensorProto.FLOAT, ["N", 3, "H", "W"]),
        helper.make_tensor_value_info("tokens", TensorProto.INT64, ["batch", None]),
    ],
    [
        helper.make_tensor_value_info("activations", TensorProto.FLOAT, ["N", 4, "H", "W"]),
        helper.make_tensor_value_info("doubled", TensorProto.INT64, ["batch", None]),
    ],
    [w, bias],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
for arg in sess.get_inputs() + sess.get_outputs():
    print(arg.name, arg.type, arg.shape, [type(d).__name__ for d in arg.shape])

results = {}
for n, h, w_ in ((1, 5, 5), (3, 8, 6)):
    images = rng.standard_normal((n, 3, h, w_)).astype(np.float32)
    tokens = rng.integers(0, 100, size=(n, h)).astype(np.int64)
    activations, doubled = sess.run(None, {"images": images, "tokens": tokens})
    print("batch", n, activations.shape, doubled.shape, doubled.dtype)
    results["activations_%d" % n] = activations
    results["doubled_%d" % n] = doubled
np.savez("results.npz", **results)
