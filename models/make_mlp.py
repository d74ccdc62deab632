#!/usr/bin/env python3
"""Writes models/mlp.onnx: a small seeded MLP used by the run command and the tool tests.

x[batch, 64] -> MatMul 64x128 + Add -> Relu -> Gemm 128x64 -> Relu -> MatMul 64x10 + Add -> logits
Only ops that the CPU kernel sets support (MatMul, Gemm on cpu.dnnl; Add, Relu on cpu.generic).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SEED = 20240601
OPSET = 17


def weight(rng, name, shape):
    # Scaled like a fan-in initialisation so activations stay of order one.
    fan_in = shape[0]
    data = rng.standard_normal(shape).astype(np.float32) / np.float32(np.sqrt(fan_in))
    return numpy_helper.from_array(data, name)


def bias(rng, name, n):
    return numpy_helper.from_array((0.1 * rng.standard_normal(n)).astype(np.float32), name)


def build():
    rng = np.random.default_rng(SEED)
    inits = [
        weight(rng, "w1", (64, 128)),
        bias(rng, "b1", 128),
        weight(rng, "w2", (128, 64)),
        bias(rng, "b2", 64),
        weight(rng, "w3", (64, 10)),
        bias(rng, "b3", 10),
    ]
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h1_mm"], name="fc1_matmul"),
        helper.make_node("Add", ["h1_mm", "b1"], ["h1_pre"], name="fc1_bias"),
        helper.make_node("Relu", ["h1_pre"], ["h1"], name="fc1_relu"),
        helper.make_node("Gemm", ["h1", "w2", "b2"], ["h2_pre"], name="fc2_gemm"),
        helper.make_node("Relu", ["h2_pre"], ["h2"], name="fc2_relu"),
        helper.make_node("MatMul", ["h2", "w3"], ["h3_mm"], name="fc3_matmul"),
        helper.make_node("Add", ["h3_mm", "b3"], ["logits"], name="fc3_bias"),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 64])
    logits = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])
    graph = helper.make_graph(nodes, "mlp", [x], [logits], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="geon models/make_mlp.py")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "mlp.onnx")
    onnx.save(build(), out)
    print(f"wrote {out} ({os.path.getsize(out)} bytes)")


if __name__ == "__main__":
    main()
