#!/usr/bin/env python3
"""Writes examples/models/det_chain.onnx, the model of examples/provider_contract.cpp:

  x [batch, 3, 3] -> MatMul(x, x) -> a -> Det -> d [batch] -> Abs -> y [batch]

The example's host lets geon use oneDNN's kernels only (devices "cpu.dnnl"), which run the
MatMul; the provider claims that one node and leaves Det and Abs to the host. Run with python3
(needs onnx).
"""
import os
import sys

import onnx
from onnx import TensorProto, helper


def build():
    nodes = [
        helper.make_node("MatMul", ["x", "x"], ["a"], name="square"),
        helper.make_node("Det", ["a"], ["d"], name="det"),
        helper.make_node("Abs", ["d"], ["y"], name="abs"),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch"])
    graph = helper.make_graph(nodes, "det_chain", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="geon examples/models/make_det_chain.py")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "det_chain.onnx")
    onnx.save(build(), out)
    print(f"wrote {out} ({os.path.getsize(out)} bytes)")


if __name__ == "__main__":
    main()
