# A model file from disk (the repository's models/mlp.onnx): open it by path, size the input
# from get_inputs(), and run a batch.
import os

import numpy as np

import onnxruntime as ort

model_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "models", "mlp.onnx")
sess = ort.InferenceSession(model_path, providers=["CPUExecutionProvider"])
inp = sess.get_inputs()[0]
print("input:", inp.name, inp.type, inp.shape)
print("outputs:", [(o.name, o.shape) for o in sess.get_outputs()])
meta = sess.get_modelmeta()
print("graph:", meta.graph_name, "producer:", meta.producer_name, "version:", meta.version)
features = inp.shape[1]
x = np.random.default_rng(7).standard_normal((6, features)).astype(np.float32)
outputs = sess.run(None, {inp.name: x})
print("output shapes:", [o.shape for o in outputs])
np.savez("results.npz", *outputs)
