"""Writes control_flow.onnx, the fault tests' model with subgraphs: a Loop whose body holds an If
(both branches with nodes of their own) and an outer If, so that allocation failures land in
nested bodies, loop-carried state and branch outputs. Run: python3 make_models.py (needs onnx).
Deterministic: the same onnx gives the same bytes."""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def control_flow():
    # Loop body: (i, cond, acc) -> (cond, acc') with acc' = If(i is even) acc + x*w else acc * 0.5,
    # and a scan output acc' per iteration.
    even_branch = helper.make_graph(
        [helper.make_node("Mul", ["x", "w"], ["xw"], name="even_mul"),
         helper.make_node("Add", ["acc_in", "xw"], ["even_out"], name="even_add")],
        "even", [], [f32("even_out", [2, 3])])
    odd_branch = helper.make_graph(
        [helper.make_node("Mul", ["acc_in", "half"], ["odd_out"], name="odd_mul")],
        "odd", [], [f32("odd_out", [2, 3])])
    body = helper.make_graph(
        [helper.make_node("Mod", ["i", "two"], ["parity"], name="body_mod"),
         helper.make_node("Equal", ["parity", "zero"], ["is_even"], name="body_equal"),
         helper.make_node("If", ["is_even"], ["acc_next"], name="body_if",
                          then_branch=even_branch, else_branch=odd_branch),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="body_cond"),
         helper.make_node("Relu", ["acc_next"], ["acc_scan"], name="body_relu")],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []), f32("acc_in", [2, 3])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), f32("acc_next", [2, 3]),
         f32("acc_scan", [2, 3])])
    pos_branch = helper.make_graph(
        [helper.make_node("Sub", ["acc", "x"], ["pos_out"], name="pos_sub")],
        "pos", [], [f32("pos_out", [2, 3])])
    neg_branch = helper.make_graph(
        [helper.make_node("Neg", ["acc"], ["neg_out"], name="neg_neg")],
        "neg", [], [f32("neg_out", [2, 3])])
    inits = [
        numpy_helper.from_array(np.array(5, dtype=np.int64), "trips"),
        numpy_helper.from_array(np.array(True), "keep_going"),
        numpy_helper.from_array(np.array(2, dtype=np.int64), "two"),
        numpy_helper.from_array(np.array(0, dtype=np.int64), "zero"),
        numpy_helper.from_array(np.array(0.5, dtype=np.float32), "half"),
        numpy_helper.from_array(
            (np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5) / 4, "w"),
        numpy_helper.from_array(np.zeros((2, 3), dtype=np.float32), "acc0"),
    ]
    graph = helper.make_graph(
        [helper.make_node("Loop", ["trips", "keep_going", "acc0"], ["acc", "scans"], name="loop",
                          body=body),
         helper.make_node("ReduceSum", ["acc"], ["total"], name="total", keepdims=0),
         helper.make_node("Greater", ["total", "zero_f"], ["positive"], name="positive"),
         helper.make_node("If", ["positive"], ["y"], name="outer_if", then_branch=pos_branch,
                          else_branch=neg_branch)],
        "control_flow", [f32("x", [2, 3])], [f32("y", [2, 3]), f32("scans", [5, 2, 3])],
        inits + [numpy_helper.from_array(np.array(0, dtype=np.float32), "zero_f")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="geon tests/faults")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(HERE, "control_flow.onnx"))


if __name__ == "__main__":
    control_flow()
