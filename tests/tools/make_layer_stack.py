#!/usr/bin/env python3
"""Writes a model of LAYERS identical layers (the shape of a transformer stack, in small) for the
geon-inspect picture tests: x[batch, 32] -> LAYERS x (MatMul + bias + Relu, Softmax, residual
Add) -> a head MatMul. Usage: make_layer_stack.py OUT.onnx LAYERS"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def build(layers):
    rng = np.random.default_rng(7)
    inits, nodes = [], []
    prev = "x"
    for i in range(layers):
        w, b = f"layer{i}.w", f"layer{i}.b"
        inits.append(numpy_helper.from_array(rng.standard_normal((32, 32)).astype(np.float32) / 6, w))
        inits.append(numpy_helper.from_array(rng.standard_normal(32).astype(np.float32) / 10, b))
        nodes += [
            helper.make_node("MatMul", [prev, w], [f"l{i}.mm"], name=f"layer{i}/matmul"),
            helper.make_node("Add", [f"l{i}.mm", b], [f"l{i}.biased"], name=f"layer{i}/bias"),
            helper.make_node("Relu", [f"l{i}.biased"], [f"l{i}.relu"], name=f"layer{i}/relu"),
            helper.make_node("Softmax", [f"l{i}.relu"], [f"l{i}.soft"], name=f"layer{i}/softmax", axis=-1),
            helper.make_node("Add", [f"l{i}.soft", prev], [f"l{i}.out"], name=f"layer{i}/residual"),
        ]
        prev = f"l{i}.out"
    inits.append(numpy_helper.from_array(rng.standard_normal((32, 4)).astype(np.float32), "head.w"))
    nodes.append(helper.make_node("MatMul", [prev, "head.w"], ["y"], name="head"))
    graph = helper.make_graph(
        nodes, "layer_stack",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


if __name__ == "__main__":
    onnx.save(build(int(sys.argv[2])), sys.argv[1])
