# Reading what a model says about itself: get_modelmeta() on a model that sets every field,
# and an initializer that is also a graph input (an overridable initializer).
import numpy as np
from onnx import TensorProto, helper, numpy_helper

import onnxruntime as ort

scale = numpy_helper.from_array(np.array([2.0, 3.0, 4.0], np.float32), "scale")
graph = helper.make_graph(
    [helper.make_node("Mul", ["x", "scale"], ["y"])],
    "scaler_graph",
    [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3]),
        helper.make_tensor_value_info("scale", TensorProto.FLOAT, [3]),
    ],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 3])],
    [scale],
    doc_string="multiplies each column by its scale",
)
model = helper.make_model(
    graph,
    opset_imports=[helper.make_opsetid("", 17)],
    producer_name="metadata-example",
    producer_version="2.5",
    domain="org.example.models",
    model_version=3,
    doc_string="A model that sets every metadata field.",
)
model.ir_version = 8
helper.set_model_props(model, {"author": "someone", "license": "Apache-2.0", "task": "scaling"})

so = ort.SessionOptions()
so.log_severity_level = 3
sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
meta = sess.get_modelmeta()
print("producer_name:", repr(meta.producer_name))
print("graph_name:", repr(meta.graph_name))
print("domain:", repr(meta.domain))
print("description:", repr(meta.description))
print("graph_description:", repr(meta.graph_description))
print("version:", meta.version, type(meta.version).__name__)
print("custom_metadata_map:", sorted(meta.custom_metadata_map.items()))

print("inputs:", [(i.name, i.shape) for i in sess.get_inputs()])
print("overridable:", [(i.name, i.type, i.shape) for i in sess.get_overridable_initializers()])
x = np.arange(6, dtype=np.float32).reshape(2, 3)
(default,) = sess.run(None, {"x": x})
(overridden,) = sess.run(None, {"x": x, "scale": np.array([-1.0, 0.5, 10.0], np.float32)})
np.savez("results.npz", default=default, overridden=overridden)
