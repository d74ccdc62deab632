"""Single-op models against ONNX Runtime, to find the ops where geon is far behind: about 70
common ops and shapes (elementwise and activations on 6.4 MB, broadcasts, transposes, reductions
over each kind of axis, pooling, normalizations, resizes, small RNNs, ...), each built with
onnx.helper, run alternately on geon and ONNX Runtime through their Python APIs (same inputs,
same thread count) for `--seconds`, printing the p50 of each and ONNX Runtime's p50 over geon's
(below 1: geon is slower), slowest ratio first. Names given on the command line select the
cases whose name contains one of them.

  GEON_PROVIDER=build/provider/libgeon_provider.so PYTHONPATH=python \
      python3 bench/op_sweep.py [--threads 2] [--seconds 2] [NAME ...]

Ratios through Python include each runtime's per-run input and output handling (a fresh 6.4 MB
output array each run for most cases); geon-run on a saved model (--keep DIR) times geon alone.
"""

import argparse
import os
import tempfile
import time

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

import geon

# ---- the cases: (name, nodes, inputs fed each run, initializers, opset) ----------------------

R = np.random.default_rng(0)


def f32(*s):
    return R.standard_normal(s).astype(np.float32)


CASES = []


def case(name, nodes, inputs, inits=(), opset=17):
    CASES.append((name, nodes, inputs, inits, opset))


X = f32(8, 64, 56, 56)  # 6.4 MB
S = f32(64, 1, 1)
case(
    "Add_bcast_channel", [h.make_node("Add", ["x", "s"], ["y"])], {"x": X}, [nh.from_array(S, "s")]
)
case("Mul_same", [h.make_node("Mul", ["x", "x2"], ["y"])], {"x": X, "x2": f32(*X.shape)})
case(
    "Div_scalar",
    [h.make_node("Div", ["x", "c"], ["y"])],
    {"x": X},
    [nh.from_array(np.array(3.0, np.float32), "c")],
)
for u in [
    "Exp",
    "Tanh",
    "Sigmoid",
    "Erf",
    "Relu",
    "Abs",
    "Sqrt",
    "Log",
    "Neg",
    "Floor",
    "Reciprocal",
    "Softplus",
    "Sin",
    "Cos",
]:
    case(u, [h.make_node(u, ["x"], ["y"])], {"x": np.abs(X) + 0.1 if u in ("Sqrt", "Log") else X})
case(
    "Pow2",
    [h.make_node("Pow", ["x", "c"], ["y"])],
    {"x": X},
    [nh.from_array(np.array(2.0, np.float32), "c")],
)
case(
    "Pow_frac",
    [h.make_node("Pow", ["x", "c"], ["y"])],
    {"x": np.abs(X)},
    [nh.from_array(np.array(0.7, np.float32), "c")],
)
case(
    "Clip",
    [h.make_node("Clip", ["x", "lo", "hi"], ["y"])],
    {"x": X},
    [nh.from_array(np.array(-1, np.float32), "lo"), nh.from_array(np.array(1, np.float32), "hi")],
)
case(
    "Where",
    [h.make_node("Greater", ["x", "z"], ["m"]), h.make_node("Where", ["m", "x", "z"], ["y"])],
    {"x": X, "z": f32(*X.shape)},
)
case("Cast_f16", [h.make_node("Cast", ["x"], ["y"], to=T.FLOAT16)], {"x": X})
case("Cast_i32", [h.make_node("Cast", ["x"], ["y"], to=T.INT32)], {"x": X})
case("Transpose_0231", [h.make_node("Transpose", ["x"], ["y"], perm=[0, 2, 3, 1])], {"x": X})
case(
    "Transpose_0213",
    [h.make_node("Transpose", ["x"], ["y"], perm=[0, 2, 1, 3])],
    {"x": f32(1, 128, 12, 64)},
)
case("Transpose_10", [h.make_node("Transpose", ["x"], ["y"], perm=[1, 0])], {"x": f32(2048, 1024)})
case("Concat_c", [h.make_node("Concat", ["x", "x2"], ["y"], axis=1)], {"x": X, "x2": X.copy()})
case("Split_c", [h.make_node("Split", ["x"], ["y1", "y2"], axis=1)], {"x": X}, opset=13)
case(
    "Slice_hw",
    [h.make_node("Slice", ["x", "st", "en", "ax"], ["y"])],
    {"x": X},
    [
        nh.from_array(np.array([1, 1], np.int64), "st"),
        nh.from_array(np.array([55, 55], np.int64), "en"),
        nh.from_array(np.array([2, 3], np.int64), "ax"),
    ],
)
case(
    "Gather_rows",
    [h.make_node("Gather", ["w", "i"], ["y"], axis=0)],
    {"i": R.integers(0, 30000, (1, 512)).astype(np.int64)},
    [nh.from_array(f32(30000, 768), "w")],
)
case(
    "Gather_axis1",
    [h.make_node("Gather", ["x", "i"], ["y"], axis=1)],
    {"x": X},
    [nh.from_array(R.integers(0, 64, (32,)).astype(np.int64), "i")],
)
for ax in [-1, 1]:
    case(
        "Softmax_ax%d" % ax,
        [h.make_node("Softmax", ["x"], ["y"], axis=ax)],
        {"x": f32(16, 128, 128) if ax == -1 else f32(16, 128, 128)},
    )
case("LogSoftmax", [h.make_node("LogSoftmax", ["x"], ["y"], axis=-1)], {"x": f32(64, 1000)})
case(
    "LayerNorm",
    [h.make_node("LayerNormalization", ["x", "g", "b"], ["y"], axis=-1)],
    {"x": f32(1, 512, 768)},
    [nh.from_array(f32(768), "g"), nh.from_array(f32(768), "b")],
)
case(
    "ReduceMean_last",
    [h.make_node("ReduceMean", ["x"], ["y"], axes=[-1])],
    {"x": f32(512, 768 * 4)},
    opset=13,
)
case("ReduceMean_hw", [h.make_node("ReduceMean", ["x"], ["y"], axes=[2, 3])], {"x": X}, opset=13)
case(
    "ReduceMax_last",
    [h.make_node("ReduceMax", ["x"], ["y"], axes=[-1])],
    {"x": f32(512, 3072)},
    opset=13,
)
case(
    "ReduceL2", [h.make_node("ReduceL2", ["x"], ["y"], axes=[-1])], {"x": f32(512, 3072)}, opset=13
)
case(
    "ReduceLogSumExp",
    [h.make_node("ReduceLogSumExp", ["x"], ["y"], axes=[-1])],
    {"x": f32(512, 3072)},
    opset=13,
)
case("ArgMax_last", [h.make_node("ArgMax", ["x"], ["y"], axis=-1)], {"x": f32(512, 3072)})
case("ArgMax_0", [h.make_node("ArgMax", ["x"], ["y"], axis=0)], {"x": f32(512, 3072)})
case(
    "TopK",
    [h.make_node("TopK", ["x", "k"], ["v", "i"], axis=-1)],
    {"x": f32(64, 4000)},
    [nh.from_array(np.array([10], np.int64), "k")],
)
case(
    "CumSum",
    [h.make_node("CumSum", ["x", "a"], ["y"])],
    {"x": f32(64, 4000)},
    [nh.from_array(np.array(1, np.int64), "a")],
)
case(
    "MaxPool3",
    [h.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])],
    {"x": X},
)
case(
    "AvgPool3",
    [
        h.make_node(
            "AveragePool", ["x"], ["y"], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1]
        )
    ],
    {"x": X},
)
case("GlobalAvgPool", [h.make_node("GlobalAveragePool", ["x"], ["y"])], {"x": X})
case(
    "BatchNorm",
    [h.make_node("BatchNormalization", ["x", "g", "b", "m", "v"], ["y"])],
    {"x": X},
    [nh.from_array(np.abs(f32(64)) + 0.5, n) for n in "gbmv"],
)
case(
    "InstanceNorm",
    [h.make_node("InstanceNormalization", ["x", "g", "b"], ["y"])],
    {"x": X},
    [nh.from_array(f32(64), "g"), nh.from_array(f32(64), "b")],
)
case(
    "GroupNorm",
    [h.make_node("GroupNormalization", ["x", "g", "b"], ["y"], num_groups=8)],
    {"x": X},
    [nh.from_array(f32(64), "g"), nh.from_array(f32(64), "b")],
    opset=21,
)
case(
    "Resize_nearest2x",
    [h.make_node("Resize", ["x", "", "sc"], ["y"], mode="nearest")],
    {"x": f32(1, 64, 56, 56)},
    [nh.from_array(np.array([1, 1, 2, 2], np.float32), "sc")],
)
case(
    "Resize_linear2x",
    [h.make_node("Resize", ["x", "", "sc"], ["y"], mode="linear")],
    {"x": f32(1, 64, 56, 56)},
    [nh.from_array(np.array([1, 1, 2, 2], np.float32), "sc")],
)
case(
    "Pad_reflect",
    [h.make_node("Pad", ["x", "p"], ["y"], mode="reflect")],
    {"x": X},
    [nh.from_array(np.array([0, 0, 2, 2, 0, 0, 2, 2], np.int64), "p")],
)
case(
    "Pad_const",
    [h.make_node("Pad", ["x", "p"], ["y"])],
    {"x": X},
    [nh.from_array(np.array([0, 0, 2, 2, 0, 0, 2, 2], np.int64), "p")],
)
case(
    "Expand",
    [h.make_node("Expand", ["x", "s"], ["y"])],
    {"x": f32(64, 1, 56)},
    [nh.from_array(np.array([8, 64, 56, 56], np.int64), "s")],
)
case(
    "Tile",
    [h.make_node("Tile", ["x", "r"], ["y"])],
    {"x": f32(8, 64, 28, 28)},
    [nh.from_array(np.array([1, 1, 2, 2], np.int64), "r")],
)
case(
    "MatMul_batched",
    [h.make_node("MatMul", ["a", "b"], ["y"])],
    {"a": f32(12, 128, 64), "b": f32(12, 64, 128)},
)
case(
    "MatMul_bcastB",
    [h.make_node("MatMul", ["a", "b"], ["y"])],
    {"a": f32(8, 128, 768)},
    [nh.from_array(f32(768, 768), "b")],
)
case(
    "Einsum_bhqd",
    [h.make_node("Einsum", ["a", "b"], ["y"], equation="bhqd,bhkd->bhqk")],
    {"a": f32(1, 12, 128, 64), "b": f32(1, 12, 128, 64)},
)
case("DepthToSpace", [h.make_node("DepthToSpace", ["x"], ["y"], blocksize=2)], {"x": X})
case(
    "Conv1d",
    [h.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1])],
    {"x": f32(8, 64, 1024)},
    [nh.from_array(f32(64, 64, 3), "w")],
)
case(
    "ConvTranspose",
    [h.make_node("ConvTranspose", ["x", "w"], ["y"], strides=[2, 2])],
    {"x": f32(1, 64, 28, 28)},
    [nh.from_array(f32(64, 32, 2, 2), "w")],
)
case(
    "Conv_grouped",
    [h.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1], group=8)],
    {"x": X},
    [nh.from_array(f32(64, 8, 3, 3), "w")],
)
case(
    "LSTM",
    [h.make_node("LSTM", ["x", "w", "r"], ["y"], hidden_size=128)],
    {"x": f32(32, 4, 128)},
    [nh.from_array(f32(1, 512, 128), "w"), nh.from_array(f32(1, 512, 128), "r")],
)
case(
    "GRU",
    [h.make_node("GRU", ["x", "w", "r"], ["y"], hidden_size=128)],
    {"x": f32(32, 4, 128)},
    [nh.from_array(f32(1, 384, 128), "w"), nh.from_array(f32(1, 384, 128), "r")],
)
case(
    "Gelu_erf",
    [
        h.make_node("Div", ["x", "c"], ["d"]),
        h.make_node("Erf", ["d"], ["e"]),
        h.make_node("Add", ["e", "one"], ["f"]),
        h.make_node("Mul", ["x", "f"], ["g"]),
        h.make_node("Mul", ["g", "half"], ["y"]),
    ],
    {"x": f32(128, 3072)},
    [
        nh.from_array(np.array(1.4142135, np.float32), "c"),
        nh.from_array(np.array(1, np.float32), "one"),
        nh.from_array(np.array(0.5, np.float32), "half"),
    ],
)
case("Dropout_inf", [h.make_node("Dropout", ["x"], ["y"])], {"x": X})
case("NonZero", [h.make_node("NonZero", ["x"], ["y"])], {"x": (X > 1)})
case(
    "ScatterND",
    [h.make_node("ScatterND", ["x", "i", "u"], ["y"])],
    {"x": f32(1000, 256)},
    [
        nh.from_array(R.permutation(1000)[:100].reshape(100, 1).astype(np.int64), "i"),
        nh.from_array(f32(100, 256), "u"),
    ],
)
case(
    "Range_Shape_ops",
    [h.make_node("Shape", ["x"], ["s"]), h.make_node("ConstantOfShape", ["s"], ["y"])],
    {"x": X},
)


def build(name, nodes, inputs, inits, opset):
    value_infos = [
        h.make_tensor_value_info(k, onnx.helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
        for k, v in inputs.items()
    ]
    outputs = [h.make_empty_tensor_value_info(n) for n in nodes[-1].output]
    graph = h.make_graph(nodes, name, value_infos, outputs, list(inits))
    return h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])


def time_case(path, inputs, threads, seconds):
    so = onnxruntime.SessionOptions()
    so.intra_op_num_threads, so.inter_op_num_threads = threads, 1
    go = geon.SessionOptions()
    go.intra_op_num_threads = threads
    sessions = {
        "geon": geon.InferenceSession(path, go),
        "onnxruntime": onnxruntime.InferenceSession(path, so, providers=["CPUExecutionProvider"]),
    }
    for s in sessions.values():
        for _ in range(3):
            s.run(None, inputs)
    # Blocks of about 0.1 s per runtime, each after a 10 ms pause: ONNX Runtime's pool spins
    # for a while after each run, and run by run it took a core from geon's next run (Relu
    # over 6.4 MB: 0.69 ms for geon in alternation, 0.15 ms alone).
    times = {k: [] for k in sessions}
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        for k, s in sessions.items():
            time.sleep(0.01)
            block_end = time.perf_counter() + 0.1
            while time.perf_counter() < block_end:
                start = time.perf_counter()
                s.run(None, inputs)
                times[k].append(time.perf_counter() - start)
    return {k: float(np.median(t)) * 1e3 for k, t in times.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--keep", help="save each case's model in this folder")
    args = ap.parse_args()
    folder = args.keep or tempfile.mkdtemp(prefix="geon_op_sweep_")
    os.makedirs(folder, exist_ok=True)
    rows = []
    for name, nodes, inputs, inits, opset in CASES:
        if args.names and not any(n in name for n in args.names):
            continue
        path = os.path.join(folder, name + ".onnx")
        onnx.save(build(name, nodes, inputs, inits, opset), path)
        try:
            p50 = time_case(path, inputs, args.threads, args.seconds)
        except Exception as e:  # noqa: BLE001 - a case either runtime refuses is reported
            print("%-20s error: %s" % (name, str(e).splitlines()[0][:150]), flush=True)
            continue
        ratio = p50["onnxruntime"] / p50["geon"]
        rows.append((ratio, name, p50))
        print(
            "%-20s geon %8.3f ms  onnxruntime %8.3f ms  ratio %5.2f"
            % (name, p50["geon"], p50["onnxruntime"], ratio),
            flush=True,
        )
    print("\nslowest first (onnxruntime p50 / geon p50):")
    for ratio, name, p50 in sorted(rows):
        print("  %-20s %5.2f" % (name, ratio))


if __name__ == "__main__":
    main()
