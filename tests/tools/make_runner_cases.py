#!/usr/bin/env python3
"""Writes backend-style test directories that pin down geon-test-runner's verdicts:

  add_wrong_output/     Add whose expected output is off at index 2      -> fail
  add_loose_tolerance/  Add 1% off, data.json rtol 0.05                 -> pass
  gradient_unsupported/ Gradient, which no geon kernel set runs         -> unsupported (skipped)

Usage: make_runner_cases.py OUT_DIR
"""
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def write_case(root, name, model, inputs, outputs, data_json=None):
    d = os.path.join(root, name)
    s = os.path.join(d, "test_data_set_0")
    os.makedirs(s, exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for i, (n, a) in enumerate(inputs):
        with open(os.path.join(s, f"input_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())
    for i, (n, a) in enumerate(outputs):
        with open(os.path.join(s, f"output_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())
    if data_json is not None:
        with open(os.path.join(d, "data.json"), "w") as f:
            f.write(data_json)


def model_of(op, inputs, shape_in, shape_out):
    node = helper.make_node(op, inputs, ["y"])
    graph = helper.make_graph(
        [node], op.lower(),
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape_in) for n in inputs],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape_out)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def main():
    root = sys.argv[1]
    shutil.rmtree(root, ignore_errors=True)  # no case of an earlier version lingers
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal((3, 4)).astype(np.float32)
    add = model_of("Add", ["a", "b"], [3, 4], [3, 4])

    wrong = a + b
    wrong.flat[2] += 1.0
    write_case(root, "add_wrong_output", add, [("a", a), ("b", b)], [("y", wrong)])

    off = ((a + b) * 1.01).astype(np.float32)
    write_case(root, "add_loose_tolerance", add, [("a", a), ("b", b)], [("y", off)],
               '{"rtol": 0.05, "atol": 1e-07}')

    # Gradient (ai.onnx.preview.training) imports but no kernel set runs it.
    m = rng.standard_normal((3, 3)).astype(np.float32)
    grad = helper.make_graph(
        [helper.make_node("Add", ["m", "m"], ["s"]),
         helper.make_node("Gradient", ["m"], ["y"], domain="ai.onnx.preview.training", xs=["m"], y="s")],
        "gradient", [helper.make_tensor_value_info("m", TensorProto.FLOAT, [3, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 3])])
    grad = helper.make_model(grad, opset_imports=[helper.make_opsetid("", 17),
                                                  helper.make_opsetid("ai.onnx.preview.training", 1)])
    write_case(root, "gradient_unsupported", grad, [("m", m)], [("y", np.full((3, 3), 2, np.float32))])


if __name__ == "__main__":
    main()
