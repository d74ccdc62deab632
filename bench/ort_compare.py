"""geon against ONNX Runtime on one model, side by side in one process: the same inputs, the
same number of threads, warm-up then alternating timed runs (A B A B ...), so machine noise
hits both alike. Prints p50/p90/p99 latency of each and the ratio geon/ORT per percentile,
and checks that the outputs agree (rtol 1e-3, atol 1e-5).

  GEON_PROVIDER=build/provider/libgeon_provider.so PYTHONPATH=python \
      python3 bench/ort_compare.py models/mlp.onnx --dim batch=64 --repeat 2000
"""

import argparse
import time

import numpy as np
import onnx
import onnxruntime

import geon

NUMPY_OF_ONNX = {1: np.float32, 6: np.int32, 7: np.int64, 9: np.bool_, 10: np.float16, 11: np.float64}


def random_feeds(model, dims, seed):
    rng = np.random.default_rng(seed)
    initializers = {i.name for i in model.graph.initializer}
    feeds = {}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        t = value.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else dims.get(d.dim_param, 1) for d in t.shape.dim]
        feeds[value.name] = rng.standard_normal(shape).astype(NUMPY_OF_ONNX[t.elem_type])
    return feeds


def percentiles(seconds):
    ms = np.array(seconds) * 1e3
    return {p: float(np.percentile(ms, p)) for p in (50, 90, 99)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("model")
    parser.add_argument("--dim", action="append", default=[], help="SYMBOL=N for symbolic dims")
    parser.add_argument("--repeat", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--threads", type=int, default=0, help="intra-op threads for both (0: default)")
    parser.add_argument("--providers", default="cpu.dnnl,cpu.generic", help="geon's kernel sets")
    args = parser.parse_args()
    dims = {k: int(v) for k, v in (d.split("=", 1) for d in args.dim)}

    model = onnx.load(args.model)
    feeds = random_feeds(model, dims, seed=0)
    so = onnxruntime.SessionOptions()
    so.intra_op_num_threads = args.threads
    ort = onnxruntime.InferenceSession(args.model, so, providers=["CPUExecutionProvider"])
    go = geon.SessionOptions()
    go.intra_op_num_threads = args.threads
    gs = geon.InferenceSession(args.model, sess_options=go, providers=args.providers.split(","))

    expected = ort.run(None, feeds)
    got = gs.run(None, feeds)
    for name, e, g in zip([o.name for o in ort.get_outputs()], expected, got):
        np.testing.assert_allclose(g, e, rtol=1e-3, atol=1e-5, err_msg="output " + name)

    runs = {"geon": (lambda: gs.run(None, feeds)), "onnxruntime": (lambda: ort.run(None, feeds))}
    for fn in runs.values():
        for _ in range(args.warmup):
            fn()
    times = {name: [] for name in runs}
    for _ in range(args.repeat):
        for name, fn in runs.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)

    stats = {name: percentiles(t) for name, t in times.items()}
    print("model %s, inputs %s, %d alternating runs each" % (
        args.model, {k: list(v.shape) for k, v in feeds.items()}, args.repeat))
    print("%-12s %10s %10s %10s" % ("", "p50 ms", "p90 ms", "p99 ms"))
    for name, s in stats.items():
        print("%-12s %10.4f %10.4f %10.4f" % (name, s[50], s[90], s[99]))
    print("%-12s %10.3f %10.3f %10.3f" % ("geon/ORT", *(stats["geon"][p] / stats["onnxruntime"][p] for p in (50, 90, 99))))


if __name__ == "__main__":
    main()
