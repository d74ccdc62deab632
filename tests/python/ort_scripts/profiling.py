# Profiling: enable it in the session options, run, end_profiling() returns the trace file's
# name, and the file is a JSON array of Chrome-trace events (one per node run).
import json
import os

import numpy as np
from onnx import TensorProto, helper

import onnxruntime as ort

graph = helper.make_graph(
    [
        helper.make_node("Mul", ["x", "x"], ["sq"], name="square"),
        helper.make_node("Sigmoid", ["sq"], ["y"], name="squash"),
    ],
    "profiled",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 8])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 8])],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8

so = ort.SessionOptions()
so.enable_profiling = True
so.profile_file_prefix = "my_profile"
so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
x = np.linspace(-2, 2, 64, dtype=np.float32).reshape(8, 8)
for _ in range(3):
    (y,) = sess.run(None, {"x": x})
profile_file = sess.end_profiling()
print("file name starts with the prefix:", profile_file.startswith("my_profile_"))
print("json file:", profile_file.endswith(".json"), os.path.exists(profile_file))
with open(profile_file) as f:
    trace = json.load(f)
print("array of events:", isinstance(trace, list))
node_events = [e for e in trace if e.get("cat") == "Node"]
print("all complete events:", all(e["ph"] == "X" for e in node_events))
ops = sorted({e["args"]["op_name"] for e in node_events})
print("ops:", ops)
print("providers:", sorted({e["args"]["provider"] for e in node_events}))
print("runs of Sigmoid:", sum(e["args"]["op_name"] == "Sigmoid" for e in node_events))
os.remove(profile_file)

plain = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
print("profiling off:", repr(plain.end_profiling()))
np.savez("results.npz", y=y)
