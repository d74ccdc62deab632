# Error handling as onnxruntime code does it: catching the exception classes of
# onnxruntime.capi.onnxruntime_pybind11_state for a missing file, unparsable bytes, wrong input
# names, shapes and element types, an unknown output and a terminated run.
import numpy as np
from onnx import TensorProto, helper

import onnxruntime as ort
from onnxruntime.capi.onnxruntime_pybind11_state import (
    Fail,
    InvalidArgument,
    InvalidProtobuf,
    NoSuchFile,
)

graph = helper.make_graph(
    [helper.make_node("Relu", ["x"], ["y"])],
    "relu",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
good = np.ones((2, 4), np.float32)


def attempt(label, call, expected=Exception):
    try:
        call()
        print(label, "-> ok")
    except expected as e:
        print(label, "->", type(e).__name__, "(caught as %s)" % expected.__name__)


attempt("missing file", lambda: ort.InferenceSession("no_such_model.onnx"), NoSuchFile)
attempt("garbage bytes", lambda: ort.InferenceSession(b"this is not a model"), InvalidProtobuf)
attempt("wrong dtype", lambda: sess.run(None, {"x": good.astype(np.float64)}), InvalidArgument)
attempt("wrong rank", lambda: sess.run(None, {"x": np.ones(4, np.float32)}), InvalidArgument)
attempt("wrong length", lambda: sess.run(None, {"x": np.ones((2, 5), np.float32)}), InvalidArgument)
attempt("unknown output", lambda: sess.run(["nope"], {"x": good}), InvalidArgument)
attempt("extra input", lambda: sess.run(None, {"x": good, "extra": good}), InvalidArgument)
attempt("missing input", lambda: sess.run(None, {}), ValueError)
attempt("misnamed input", lambda: sess.run(None, {"X": good}), ValueError)

run_options = ort.RunOptions()
run_options.terminate = True
attempt("terminated run", lambda: sess.run(None, {"x": good}, run_options), Fail)
run_options.terminate = False
attempt("run after terminate cleared", lambda: sess.run(None, {"x": good}, run_options))

# Every class is an Exception; a generic handler sees them all.
for cls in (Fail, InvalidArgument, InvalidProtobuf, NoSuchFile):
    print(cls.__name__, issubclass(cls, Exception))

(y,) = sess.run(None, {"x": good - 2})
np.savez("results.npz", y=y)
