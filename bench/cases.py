"""The cases of bench/compare.py: each a model file and its inputs (seeded), built here or from
the model suite's exports (models/export/export_models.py, Debian's torch, seeded weights).

A case is a dict: name, path of the .onnx, feeds {name: array}, and `flops` (multiply-adds x 2)
or `bytes` (bytes a pass must read) where the machine-limit fraction applies; `quantized` for
int8 models, whose outputs compare.py checks as two int8 runtimes' (agree_quantized).
"""

import os
import subprocess

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUITE = os.environ.get("GEON_MODEL_CACHE", os.path.join(REPO, "build", "models"))


def _save(model, path):
    model.ir_version = 10
    onnx.save(model, path)
    return path


def _with_batch(src, dst, batch):
    """src with its first input and output dims set to `batch` (and shape annotations inside
    dropped), for models exported at batch 1 whose ops do not fix the batch."""
    model = onnx.load(src)
    for value in list(model.graph.input) + list(model.graph.output):
        value.type.tensor_type.shape.dim[0].dim_value = batch
    del model.graph.value_info[:]
    return _save(model, dst)


def _suite_model(name):
    path = os.path.join(SUITE, name + ".onnx")
    if not os.path.exists(path):
        subprocess.run(["/usr/bin/python3", os.path.join(REPO, "models", "export", "export_models.py"),
                        "--out", SUITE, name], check=True)
    return path


def _image(batch, rng):
    return {"input": rng.standard_normal((batch, 3, 224, 224)).astype(np.float32)}


def resnet50(out, batch, rng):
    path = _with_batch(_suite_model("resnet50"), os.path.join(out, "resnet50_b%d.onnx" % batch), batch)
    return {"path": path, "feeds": _image(batch, rng), "flops": 2 * 4.1e9 * batch}


def mobilenet_v2(out, rng):
    return {"path": _suite_model("mobilenet_v2"), "feeds": _image(1, rng)}


def bert_base(out, rng):
    ids = rng.integers(0, 30000, (1, 128)).astype(np.int64)
    return {"path": _suite_model("bert_base"), "feeds": {"input_ids": ids, "attention_mask": np.ones((1, 128), np.int64)}}


def ln_gelu_block(out, rng):
    """x [1, 128, 1024] -> LayerNormalization -> MatMul 1024x4096 + bias -> Gelu -> MatMul
    4096x1024 + bias: a transformer's MLP block."""
    d, h = 1024, 4096
    w = {
        "gamma": rng.standard_normal(d).astype(np.float32) * 0.1 + 1,
        "beta": rng.standard_normal(d).astype(np.float32) * 0.1,
        "w1": (rng.standard_normal((d, h)) / np.sqrt(d)).astype(np.float32),
        "b1": rng.standard_normal(h).astype(np.float32) * 0.1,
        "w2": (rng.standard_normal((h, d)) / np.sqrt(h)).astype(np.float32),
        "b2": rng.standard_normal(d).astype(np.float32) * 0.1,
    }
    nodes = [
        helper.make_node("LayerNormalization", ["x", "gamma", "beta"], ["n"], axis=-1, epsilon=1e-5),
        helper.make_node("MatMul", ["n", "w1"], ["h0"]),
        helper.make_node("Add", ["h0", "b1"], ["h1"]),
        helper.make_node("Gelu", ["h1"], ["g"]),
        helper.make_node("MatMul", ["g", "w2"], ["y0"]),
        helper.make_node("Add", ["y0", "b2"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "ln_gelu", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 128, d])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 128, d])],
                              [numpy_helper.from_array(v, k) for k, v in w.items()])
    path = _save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)]), os.path.join(out, "ln_gelu.onnx"))
    return {"path": path, "feeds": {"x": rng.standard_normal((1, 128, d)).astype(np.float32)},
            "flops": 2 * 2 * 128 * d * h}


def l2(out, rng):
    """sum((x - y)^2) over 2^24 floats, as Sub, Mul and ReduceSum."""
    n = 1 << 24
    nodes = [
        helper.make_node("Sub", ["x", "y"], ["d"]),
        helper.make_node("Mul", ["d", "d"], ["s"]),
        helper.make_node("ReduceSum", ["s"], ["l2"], keepdims=0),
    ]
    graph = helper.make_graph(nodes, "l2", [helper.make_tensor_value_info(k, TensorProto.FLOAT, [n]) for k in "xy"],
                              [helper.make_tensor_value_info("l2", TensorProto.FLOAT, [])])
    path = _save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), os.path.join(out, "l2.onnx"))
    feeds = {k: rng.standard_normal(n).astype(np.float32) for k in "xy"}
    return {"path": path, "feeds": feeds, "bytes": 2 * 4 * n}


def mlp(out, batch, rng):
    return {"path": os.path.join(REPO, "models", "mlp.onnx"),
            "feeds": {"x": rng.standard_normal((batch, 64)).astype(np.float32)}}


def resnet50_int8(out, rng):
    """ResNet-50 in QDQ form, made by onnxruntime.quantization.quantize_static from seeded
    calibration images."""
    path = os.path.join(out, "resnet50_int8.onnx")
    if not os.path.exists(path):
        # Imported only to make the model: a peak-memory child of another runtime that loaded
        # ONNX Runtime here would count its library as that runtime's (about 10 MB resident).
        from onnxruntime import quantization as q

        fp32 = _suite_model("resnet50")
        calib = np.random.default_rng(7)

        class Images(q.CalibrationDataReader):
            def __init__(self):
                self.left = 8

            def get_next(self):
                if not self.left:
                    return None
                self.left -= 1
                return {"input": calib.standard_normal((1, 3, 224, 224)).astype(np.float32)}

        q.quantize_static(fp32, path, Images(), quant_format=q.QuantFormat.QDQ,
                          activation_type=q.QuantType.QUInt8, weight_type=q.QuantType.QInt8)
    return {"path": path, "feeds": _image(1, rng), "flops": 2 * 4.1e9, "quantized": True}


# name -> maker(out_dir, rng)
CASES = {
    "resnet50_b1": lambda out, rng: resnet50(out, 1, rng),
    "resnet50_b8": lambda out, rng: resnet50(out, 8, rng),
    "mobilenet_v2_b1": mobilenet_v2,
    "bert_base_s128_b1": bert_base,
    "ln_gelu_block": ln_gelu_block,
    "l2": l2,
    "mlp_b1": lambda out, rng: mlp(out, 1, rng),
    "mlp_b64": lambda out, rng: mlp(out, 64, rng),
    "resnet50_int8_b1": resnet50_int8,
}
