# Element types through a small preprocessing graph: float16 and int64 inputs, a bool mask,
# casts, Where, Gather, a reduction and a reshape, checking the dtypes that come back.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

import onnxruntime as ort

shape = numpy_helper.from_array(np.array([2, -1], np.int64), "shape")
axes = numpy_helper.from_array(np.array([1], np.int64), "axes")
zero = numpy_helper.from_array(np.array(0, np.float32), "zero")
graph = helper.make_graph(
    [
        helper.make_node("Cast", ["half"], ["full"], to=TensorProto.FLOAT),
        helper.make_node("Greater", ["full", "zero"], ["mask"]),
        helper.make_node("Where", ["mask", "full", "zero"], ["clipped"]),
        helper.make_node("Gather", ["clipped", "ids"], ["picked"], axis=0),
        helper.make_node("ReduceSum", ["picked", "axes"], ["total"], keepdims=0),
        helper.make_node("Reshape", ["ids", "shape"], ["ids_2d"]),
        helper.make_node("Cast", ["clipped"], ["as_half"], to=TensorProto.FLOAT16),
    ],
    "preprocess",
    [
        helper.make_tensor_value_info("half", TensorProto.FLOAT16, [4, 6]),
        helper.make_tensor_value_info("ids", TensorProto.INT64, [4]),
    ],
    [
        helper.make_tensor_value_info("mask", TensorProto.BOOL, [4, 6]),
        helper.make_tensor_value_info("total", TensorProto.FLOAT, [4]),
        helper.make_tensor_value_info("ids_2d", TensorProto.INT64, [2, 2]),
        helper.make_tensor_value_info("as_half", TensorProto.FLOAT16, [4, 6]),
    ],
    [shape, axes, zero],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
print([(i.name, i.type) for i in sess.get_inputs()])
print([(o.name, o.type, o.shape) for o in sess.get_outputs()])

rng = np.random.default_rng(11)
half = rng.standard_normal((4, 6)).astype(np.float16)
ids = np.array([3, 0, 2, 2], np.int64)
mask, total, ids_2d, as_half = sess.run(None, {"half": half, "ids": ids})
for name, value in (("mask", mask), ("total", total), ("ids_2d", ids_2d), ("as_half", as_half)):
    print(name, value.dtype, value.shape)
print("mask count:", int(mask.sum()), "ids:", ids_2d.tolist())
np.savez("results.npz", mask=mask, total=total, ids_2d=ids_2d, as_half=as_half)
