# A first onnxruntime script: build a small classifier with onnx.helper, open it with session
# options and the CPU provider, look at its inputs and outputs, run it, keep the results.
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import onnxruntime as ort

rng = np.random.default_rng(0)
w1 = numpy_helper.from_array(rng.standard_normal((16, 32)).astype(np.float32), "w1")
b1 = numpy_helper.from_array(rng.standard_normal(32).astype(np.float32), "b1")
w2 = numpy_helper.from_array(rng.standard_normal((32, 4)).astype(np.float32), "w2")
nodes = [
    helper.make_node("MatMul", ["x", "w1"], ["h0"], name="fc1"),
    helper.make_node("Add", ["h0", "b1"], ["h1"], name="bias1"),
    helper.make_node("Relu", ["h1"], ["hidden"], name="relu"),
    helper.make_node("MatMul", ["hidden", "w2"], ["logits"], name="fc2"),
    helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=-1),
]
graph = helper.make_graph(
    nodes,
    "classifier",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16])],
    [
        helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["batch", 4]),
        helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["batch", 32]),
    ],
    [w1, b1, w2],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.checker.check_model(model)

so = ort.SessionOptions()
so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
so.intra_op_num_threads = 2
so.log_severity_level = 3
sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])

print("providers:", sess.get_providers())
for i in sess.get_inputs():
    print("input:", i.name, i.type, i.shape)
for o in sess.get_outputs():
    print("output:", o.name, o.type, o.shape)

input_name = sess.get_inputs()[0].name
x = rng.standard_normal((5, 16)).astype(np.float32)
probs, hidden = sess.run(None, {input_name: x})
print("probs:", probs.shape, probs.dtype, "argmax:", probs.argmax(axis=1).tolist())
print("hidden:", hidden.shape, hidden.dtype)
only = sess.run(["hidden"], {input_name: x})
print("subset:", len(only), only[0].shape)
single = sess.run([sess.get_outputs()[0].name], {input_name: x[:1]})[0]
print("one row:", single.shape)
as_list = sess.run(None, {input_name: x.tolist()})[0]
print("from a list:", as_list.shape, as_list.dtype)

np.savez("results.npz", probs=probs, hidden=hidden, only=only[0], single=single, as_list=as_list)
