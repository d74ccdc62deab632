# I/O binding on the CPU: inputs bound from numpy arrays, OrtValues and raw pointers; outputs
# written into a preallocated buffer, into an OrtValue, or allocated by the run.
import numpy as np
from onnx import TensorProto, helper

import onnxruntime as ort

graph = helper.make_graph(
    [
        helper.make_node("Add", ["a", "b"], ["sum"]),
        helper.make_node("Relu", ["sum"], ["relu"]),
    ],
    "add_relu",
    [
        helper.make_tensor_value_info("a", TensorProto.FLOAT, [3, 4]),
        helper.make_tensor_value_info("b", TensorProto.FLOAT, [3, 4]),
    ],
    [
        helper.make_tensor_value_info("sum", TensorProto.FLOAT, [3, 4]),
        helper.make_tensor_value_info("relu", TensorProto.FLOAT, [3, 4]),
    ],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])

rng = np.random.default_rng(1)
a = rng.standard_normal((3, 4)).astype(np.float32)
b = rng.standard_normal((3, 4)).astype(np.float32)

# 1: numpy inputs, one output into my own buffer, the other allocated by the run
binding = sess.io_binding()
binding.bind_cpu_input("a", a)
binding.bind_cpu_input("b", b)
sum_buffer = np.zeros((3, 4), np.float32)
binding.bind_output("sum", "cpu", 0, np.float32, list(sum_buffer.shape), sum_buffer.ctypes.data)
binding.bind_output("relu")
binding.synchronize_inputs()
print("run_with_iobinding returns:", sess.run_with_iobinding(binding))
binding.synchronize_outputs()
outputs = binding.get_outputs()
print("outputs:", len(outputs), [o.shape() for o in outputs], [o.data_type() for o in outputs])
print("element types:", [o.element_type() for o in outputs], [o.device_name() for o in outputs])
print("written in place:", bool(np.array_equal(sum_buffer, outputs[0].numpy())))
first = binding.copy_outputs_to_cpu()

# 2: OrtValues in and out, and an input bound from a raw pointer
a_value = ort.OrtValue.ortvalue_from_numpy(a)
print("OrtValue:", a_value.shape(), a_value.data_type(), a_value.is_tensor(), a_value.has_value())
relu_value = ort.OrtValue.ortvalue_from_shape_and_type([3, 4], np.float32)
binding.clear_binding_inputs()
binding.clear_binding_outputs()
binding.bind_ortvalue_input("a", a_value)
b2 = (b * 2).astype(np.float32)
binding.bind_input("b", "cpu", 0, np.float32, [3, 4], b2.ctypes.data)
binding.bind_ortvalue_output("relu", relu_value)
sess.run_with_iobinding(binding)
relu2 = relu_value.numpy().copy()
print("ortvalue output:", relu_value.shape(), len(binding.get_outputs()))

# 3: a binding reused after changing the bound array's contents (bound memory, not a copy)
binding = sess.io_binding()
binding.bind_cpu_input("a", a)
binding.bind_cpu_input("b", b)
binding.bind_output("relu")
a[:] = -a
sess.run_with_iobinding(binding)
relu3 = binding.copy_outputs_to_cpu()[0]

# 4: asking for no output is an error
empty = sess.io_binding()
empty.bind_cpu_input("a", a)
empty.bind_cpu_input("b", b)
try:
    sess.run_with_iobinding(empty)
except Exception as e:
    print("no outputs:", type(e).__name__)

np.savez("results.npz", sum=first[0], relu=first[1], relu2=relu2, relu3=relu3, buffer=sum_buffer)
