# Session options and providers as a deployment script sets them: optimization levels, threads,
# execution mode, config entries, provider tuples and provider_options, and what the session
# reports back.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

import onnxruntime as ort

rng = np.random.default_rng(5)
weights = numpy_helper.from_array(rng.standard_normal((8, 8)).astype(np.float32), "weights")
graph = helper.make_graph(
    [
        helper.make_node("MatMul", ["x", "weights"], ["mm"]),
        helper.make_node("Tanh", ["mm"], ["y"]),
    ],
    "options",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])],
    [weights],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
data = model.SerializeToString()
x = rng.standard_normal((3, 8)).astype(np.float32)

print("device:", ort.get_device())
print("CPU available:", "CPUExecutionProvider" in ort.get_available_providers())
print("version is a string:", isinstance(ort.get_version_string(), str), isinstance(ort.__version__, str))

results = {}
for level in (
    ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
    ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
    ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
    ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
):
    so = ort.SessionOptions()
    so.graph_optimization_level = level
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    sess = ort.InferenceSession(data, sess_options=so, providers=["CPUExecutionProvider"])
    kept = sess.get_session_options()
    print(level, int(level), "->", kept.graph_optimization_level, kept.intra_op_num_threads, kept.execution_mode)
    print("config entry:", so.get_session_config_entry("session.intra_op.allow_spinning"))
    results[level.name] = sess.run(None, {"x": x})[0]

for providers, provider_options in (
    (["CPUExecutionProvider"], None),
    ([("CPUExecutionProvider", {})], None),
    (["CPUExecutionProvider"], [{}]),
):
    sess = ort.InferenceSession(data, providers=providers, provider_options=provider_options)
    print("providers:", sess.get_providers(), "options:", sess.get_provider_options())

# CUDA first, CPU as fallback: a CUDA provider is only reported where a GPU is usable.
sess = ort.InferenceSession(data, providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
print("CUDA reported only when available:",
      ("CUDAExecutionProvider" in sess.get_providers()) == ("CUDAExecutionProvider" in ort.get_available_providers()))
print("CPU last:", sess.get_providers()[-1])

run_options = ort.RunOptions()
run_options.log_severity_level = 3
run_options.logid = "request-17"
run_options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
print("run config:", run_options.get_run_config_entry("memory.enable_memory_arena_shrinkage"), run_options.logid)
results["with_run_options"] = sess.run(["y"], {"x": x}, run_options)[0]
np.savez("results.npz", **results)
