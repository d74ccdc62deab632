#!/usr/bin/env python3
"""Writes backend-style test directories that pin down geon-test-runner's verdicts:

  add_wrong_output/     Add whose expected output is off at index 2      -> fail
  add_loose_tolerance/  Add 1% off, data.json rtol 0.05                 -> pass
  gradient_unsupported/ Gradient through Softmax, which it cannot differentiate
                                                                       -> unsupported (skipped)
  maps_in_and_out/      DictVectorizer of a MapProto input and ZipMap to a sequence of maps,
                        compared with the data's MapProto sequence       -> pass

Usage: make_runner_cases.py OUT_DIR
"""
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def _map_proto(name, value):
    """A dict of int64 or str keys and float32 values as a MapProto (onnx's from_dict does not
    take str keys)."""
    m = onnx.MapProto(name=name)
    if all(isinstance(k, str) for k in value):
        m.key_type = TensorProto.STRING
        m.string_keys.extend(k.encode() for k in value)
    else:
        m.key_type = TensorProto.INT64
        m.keys.extend(value)
    m.values.CopyFrom(numpy_helper.from_list([np.array(v, np.float32) for v in value.values()]))
    return m


def _proto(name, value):
    """A value as the backend data stores it: TensorProto, MapProto (dict) or SequenceProto."""
    if isinstance(value, dict):
        return _map_proto(name, value)
    if isinstance(value, list):
        s = onnx.SequenceProto(name=name, elem_type=onnx.SequenceProto.MAP)
        s.map_values.extend(_map_proto("", m) for m in value)
        return s
    return numpy_helper.from_array(value, name)


def write_case(root, name, model, inputs, outputs, data_json=None):
    d = os.path.join(root, name)
    s = os.path.join(d, "test_data_set_0")
    os.makedirs(s, exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for i, (n, a) in enumerate(inputs):
        with open(os.path.join(s, f"input_{i}.pb"), "wb") as f:
            f.write(_proto(n, a).SerializeToString())
    for i, (n, a) in enumerate(outputs):
        with open(os.path.join(s, f"output_{i}.pb"), "wb") as f:
            f.write(_proto(n, a).SerializeToString())
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

    # Gradient (ai.onnx.preview.training) has no derivative for Softmax: the model is refused
    # as unsupported.
    m = rng.standard_normal((3, 3)).astype(np.float32)
    grad = helper.make_graph(
        [helper.make_node("Softmax", ["m"], ["s"]),
         helper.make_node("Gradient", ["m"], ["y"], domain="ai.onnx.preview.training", xs=["m"], y="s")],
        "gradient", [helper.make_tensor_value_info("m", TensorProto.FLOAT, [3, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 3])])
    grad = helper.make_model(grad, opset_imports=[helper.make_opsetid("", 17),
                                                  helper.make_opsetid("ai.onnx.preview.training", 1)])
    write_case(root, "gradient_unsupported", grad, [("m", m)], [("y", np.full((3, 3), 2, np.float32))])

    # Maps (ai.onnx.ml) in and out: M, a map(int64, float) as a MapProto, vectorized over the
    # vocabulary 1, 2, 5 (V); X's rows zipped with the labels "a", "b" into a sequence of maps (Z).
    ml = "ai.onnx.ml"
    map_type = helper.make_map_type_proto(TensorProto.INT64, helper.make_tensor_type_proto(TensorProto.FLOAT, []))
    seq_type = helper.make_sequence_type_proto(
        helper.make_map_type_proto(TensorProto.STRING, helper.make_tensor_type_proto(TensorProto.FLOAT, [])))
    maps = helper.make_graph(
        [helper.make_node("DictVectorizer", ["M"], ["V"], domain=ml, int64_vocabulary=[1, 2, 5]),
         helper.make_node("ZipMap", ["X"], ["Z"], domain=ml, classlabels_strings=["a", "b"])],
        "maps", [helper.make_value_info("M", map_type), helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 2])],
        [helper.make_tensor_value_info("V", TensorProto.FLOAT, [1, 3]), helper.make_value_info("Z", seq_type)])
    maps = helper.make_model(maps, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(ml, 3)])
    fed = {1: np.float32(0.5), 5: np.float32(-2.0), 9: np.float32(7.0)}
    x = rng.standard_normal((2, 2)).astype(np.float32)
    v = np.array([[fed.get(k, 0) for k in (1, 2, 5)]], np.float32)
    z = [{"a": x[r, 0], "b": x[r, 1]} for r in range(2)]
    write_case(root, "maps_in_and_out", maps, [("M", fed), ("X", x)], [("V", v), ("Z", z)])

if __name__ == "__main__":
    main()
