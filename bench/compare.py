"""geon against ONNX Runtime and OpenVINO on the cases of the performance issue, side by side in one
process: the same inputs, the same intra-op thread count (one inter-op thread, OpenVINO's precision
hint f32), warm-up runs, then blocks of runs alternating between the runtimes (so machine noise
hits all alike) until each has `--runs` timed runs or the case's `--seconds` are spent, and in any
case until each has `--min-runs` (200): a p99 read from the 11-30 runs that 20 seconds give
ResNet-50 b8 or BERT is their largest run or the one before it, which one preempted run decides
(ResNet-50 b1's p99 over p50 moved 1.2-1.7x between runs of ~100 each, and was 1.23x for every
runtime over 505 each). A block is about `--block-ms` of one runtime's runs (at least one run):
each runtime is timed as its users run it, one session run after run, rather than right after
another runtime's run while that runtime's pool threads still spin on the same cores (ONNX
Runtime's spin for milliseconds after a run; run by run, that measured the neighbours' spinning
more than the runtime). `--block-ms 0` alternates run by run. After each block the run pauses
`--settle-ms` (not counted in the case's `--seconds`) so that those threads are idle before the
next runtime's block: without the pause, ONNX Runtime's spinning took a core from the start of the
next block, and that alone put the committed MLP's p99 at 10x its p50 (geon batch 64 at 2 threads:
p99 0.28 ms, 0.07 ms with a 10 ms pause, 0.065 ms with ONNX Runtime's spinning switched off). The
first `--block-warmup` runs of each block (one) are not timed: they find the caches holding the
last runtime's weights and activations, and with blocks of a few runs (ResNet-50's 38 ms runs make
blocks of two) they were half of the timed runs and every runtime's p99 (ResNet-50 at 2 threads:
geon's p99 64.6 ms on a p50 of 38.0 with them, 42.4 on 36.2 without; ONNX Runtime 75.4 and 43.5).

Per case it prints each runtime's p50 and p99 (ms), the ratio of the faster peer's p50 to
geon's (> 1: geon is faster), geon's fraction of the machine's limit (fp32 peak for the
compute-bound cases; for the L2 expression, a streaming read of its bytes timed in its own blocks:
see read_references), session creation time
(the median of `--creations` fresh sessions per runtime, made in rotating order),
peak resident memory (each runtime measured alone in a child process), and whether geon's
outputs agree with ONNX Runtime's (`ok`: within 1e-3 for float models, as two int8 runtimes'
should for quantized ones, see agree_quantized); then the geometric mean of the ratios. The
machine's limits are measured in the same run: the best of a large matmul and a large 3x3
convolution, and a ReduceSum over 256 MiB, each the better of geon's and ONNX Runtime's
kernels for it (the int8 case's fraction is of the fp32 peak too, which int8 kernels may
pass). The machine's interruptions are recorded too (`--interruption-seconds` of a pinned
clock-reading loop on each CPU, bench/interruptions.py), and each case's `gaps p99` is the p99
that runs of geon's p50 would have over them with no noise of their own, as a multiple of that
p50 (an estimate, not a bound): where it is above 1.5, meeting the tail target depends on the
machine's moment more than on the runtime (the committed MLP's 20-us runs on two threads find
the pool's thread stopped at the start of about one run in a hundred, and the caller then does
both parts).

  GEON_PROVIDER=build/provider/libgeon_provider.so PYTHONPATH=python \\
      python3 bench/compare.py [--threads 2] [--seconds 20] [--json bench.json] [CASE ...]

Needs onnxruntime and openvino (scripts/setup.sh --with-bench) and, for the CNN and BERT cases,
the model suite's exports (made on first use with Debian's torch: scripts/setup.sh --with-torch).
"""

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402
import interruptions  # noqa: E402

RUNTIMES = ("geon", "onnxruntime", "openvino")


# ---- the runtimes: each gives (create seconds, run function) --------------------------------


def open_geon(path, threads):
    import geon

    options = geon.SessionOptions()
    options.intra_op_num_threads = threads
    start = time.perf_counter()
    session = geon.InferenceSession(path, sess_options=options)
    return time.perf_counter() - start, lambda feeds: session.run(None, feeds)


def open_onnxruntime(path, threads):
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    start = time.perf_counter()
    session = onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    return time.perf_counter() - start, lambda feeds: session.run(None, feeds)


def open_openvino(path, threads):
    import openvino

    start = time.perf_counter()
    core = openvino.Core()
    compiled = core.compile_model(core.read_model(path), "CPU", {
        "INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": str(threads),
        "PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": "1"})
    request = compiled.create_infer_request()
    created = time.perf_counter() - start

    def run(feeds):
        result = request.infer(feeds)
        return [result[o] for o in compiled.outputs]

    return created, run


OPEN = {"geon": open_geon, "onnxruntime": open_onnxruntime, "openvino": open_openvino}


def percentile(samples, p):
    return float(np.percentile(np.array(samples) * 1e3, p))


def agree(got, want):
    """Whether geon's outputs match ONNX Runtime's (rtol 1e-3, atol 1e-3 of the largest value)."""
    for g, w in zip(got, want):
        g, w = np.asarray(g, np.float64), np.asarray(w, np.float64)
        scale = max(float(np.abs(w).max()) if w.size else 0.0, 1e-6)
        if g.shape != w.shape or not np.allclose(g, w, rtol=1e-3, atol=1e-3 * scale):
            return False
    return True


# Two int8 runtimes agree when they round differently, not when they compute differently. Each
# layer's requantization may land a value one step to either side of a tie (float arithmetic in
# another order, an int32 accumulator instead of float sums; on CPUs without VNNI, oneDNN's u8·s8
# kernels also saturate 16-bit pair sums), and later layers carry such steps along: on the QDQ
# ResNet-50, ONNX Runtime itself differs from the literal evaluation of its own model
# (optimisations off: DequantizeLinear, float Conv, QuantizeLinear) by up to 2 output steps, 1.6%
# in L2 (so does geon, which gives ONNX Runtime's own bytes when 7-bit weights rule saturation
# out). A wrong kernel (a lost zero point, a wrong scale or bias, a dropped residual) moves most
# outputs by many steps. So: every output within MAX_STEPS of its quantization step, the L2
# difference within MAX_RELATIVE of the reference's norm, and for class scores the same top-1
# (unless the reference's top two lie within the differences seen) and top-5.
MAX_STEPS = 8
MAX_RELATIVE = 0.05


def quantized_output_scales(path):
    """Per output of a QDQ model: the scale of the DequantizeLinear that makes it, else None."""
    model = onnx.load(path, load_external_data=False)
    inits = {i.name: i for i in model.graph.initializer}
    scales = []
    for out in model.graph.output:
        made = [n for n in model.graph.node if n.op_type == "DequantizeLinear" and n.output[0] == out.name]
        scale = inits.get(made[0].input[1]) if made else None
        scales.append(float(numpy_helper.to_array(scale).reshape(-1)[0]) if scale is not None else None)
    return scales


def agree_quantized(got, want, scales):
    """(ok, why): whether geon's outputs match ONNX Runtime's as two int8 runtimes' should (see
    MAX_STEPS above); `scales` gives each output's quantization step (None: 1e-3 of its range)."""
    worst_steps = worst_relative = 0.0
    for i, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g, np.float64), np.asarray(w, np.float64)
        if g.shape != w.shape:
            return False, "output %d: shape %s, want %s" % (i, g.shape, w.shape)
        if not w.size:
            continue
        step = scales[i] if i < len(scales) and scales[i] else 1e-3 * max(float(np.abs(w).max()), 1e-6)
        diff = np.abs(g - w)
        steps = float(diff.max()) / step
        relative = float(np.linalg.norm(g - w) / max(np.linalg.norm(w), 1e-30))
        if steps > MAX_STEPS or relative > MAX_RELATIVE:
            return False, "output %d: %.1f steps apart at most, %.2f%% in L2" % (i, steps, 100 * relative)
        worst_steps, worst_relative = max(worst_steps, steps), max(worst_relative, relative)
        if w.ndim == 2 and w.shape[1] >= 5:  # class scores
            for row in range(w.shape[0]):
                top = np.argsort(-w[row])
                if np.argmax(g[row]) != top[0] and w[row, top[0]] - w[row, top[1]] > 2 * float(diff.max()):
                    return False, "output %d row %d: top-1 %d, want %d" % (i, row, np.argmax(g[row]), top[0])
                if len(set(np.argsort(-g[row])[:5]) & set(top[:5])) < 4:
                    return False, "output %d row %d: top-5 overlaps in fewer than 4" % (i, row)
    return True, "%.1f steps apart at most, %.2f%% in L2 (bounds %d, %.0f%%)" % (
        worst_steps, 100 * worst_relative, MAX_STEPS, 100 * MAX_RELATIVE)


def peak_rss_mb(runtime, case, threads, out_dir):
    """Peak resident memory of a child process that opens `runtime` on `case` and runs it."""
    done = subprocess.run([sys.executable, __file__, "--rss-child", runtime, case, "--threads", str(threads),
                           "--out", out_dir], capture_output=True, text=True)
    return float(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip() else float("nan")


def peak_rss_of_self_mb():
    """This process's own peak resident memory: VmHWM, which Linux keeps per address space, so
    a child's figure starts at zero when it execs. (getrusage's ru_maxrss does not: it keeps
    the high-water mark of the address space the child forked from, here the parent's, which
    has every runtime and model of the run loaded.)"""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def reset_peak_rss():
    """Starts this process's VmHWM over from its current RSS (Linux: clear_refs 5), so what
    making a case's model costs in Python is not counted as the runtime's."""
    import gc

    gc.collect()
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def rss_child(runtime, case, threads, out_dir):
    c = cases.CASES[case](out_dir, np.random.default_rng(0))
    reset_peak_rss()
    _, run = OPEN[runtime](c["path"], threads)
    for _ in range(3):
        run(c["feeds"])
    print(peak_rss_of_self_mb())


def bench_case(name, c, args, out_dir):
    row = {"case": name}
    sessions = {}
    for r in RUNTIMES:
        try:
            created, run = OPEN[r](c["path"], args.threads)
            sessions[r] = run
            row[r] = {"create_s": created}
        except Exception as e:  # noqa: BLE001 - a runtime that cannot take the model is reported
            row[r] = {"error": str(e).splitlines()[0][:160]}
    if "geon" in sessions and "onnxruntime" in sessions:
        got, want = sessions["geon"](c["feeds"]), sessions["onnxruntime"](c["feeds"])
        if c.get("quantized"):
            row["outputs_agree"], row["agreement"] = agree_quantized(got, want, quantized_output_scales(c["path"]))
        else:
            row["outputs_agree"] = agree(got, want)
    # What the runs time: each runtime's session on the case's feeds and, for a case with a
    # bandwidth limit, the streaming read it is measured against (see read_references).
    timed = {r: (run, c["feeds"]) for r, run in sessions.items()}
    references = read_references(c, args.threads, out_dir) if "bytes" in c else {}
    timed.update(references)
    for run, feeds in timed.values():
        for _ in range(args.warmup):
            run(feeds)
    times = {r: [] for r in timed}
    block = {r: 1 for r in timed}  # runs per block, from the first block's times
    deadline = time.perf_counter() + args.seconds

    def more():
        fewest = min((len(t) for t in times.values()), default=args.runs)
        return fewest < min(args.min_runs, args.runs) or (fewest < args.runs and time.perf_counter() < deadline)

    while more():
        for r, (run, feeds) in timed.items():
            time.sleep(args.settle_ms / 1e3)
            deadline += args.settle_ms / 1e3  # the pause is not the case's timed-run budget
            for _ in range(args.block_warmup):
                run(feeds)
            for _ in range(block[r]):
                start = time.perf_counter()
                run(feeds)
                times[r].append(time.perf_counter() - start)
            block[r] = max(1, int(args.block_ms / 1e3 / max(float(np.median(times[r])), 1e-6)))
    for r in sessions:
        t = times[r]
        row[r].update({"runs": len(t), "p50_ms": percentile(t, 50), "p99_ms": percentile(t, 99)})
    if references:
        # The better runtime's p50, as the machine's limits take the better kernel.
        row["read_reference"] = {r: c["bytes"] / (percentile(times[r], 50) / 1e3) / 1e9 for r in references}
    timed.clear()
    references.clear()
    runtimes = list(sessions)
    sessions.clear()
    creation_rounds(row, runtimes, c["path"], args)
    peers = [row[r]["p50_ms"] for r in ("onnxruntime", "openvino") if "p50_ms" in row.get(r, {})]
    if "p50_ms" in row["geon"] and peers:
        row["ratio"] = min(peers) / row["geon"]["p50_ms"]
    if args.memory:
        for r in runtimes:
            row[r]["peak_rss_mb"] = peak_rss_mb(r, name, args.threads, out_dir)
    return row


# ---- the machine's limits, measured with geon's and ONNX Runtime's kernels ----------------------


def read_model(path, elems):
    """ReduceSum over `elems` floats: a streaming read of 4 * elems bytes."""
    graph = helper.make_graph([helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0)], "read",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [elems])],
                              [helper.make_tensor_value_info("s", TensorProto.FLOAT, [])])
    return cases._save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def read_references(c, threads, out_dir):
    """The streaming read of a bandwidth case's bytes, on geon and on ONNX Runtime, as
    {name: (run, feeds)} to be timed in the case's own alternating blocks. The case's limit
    fraction is its p50 against the better of their p50s: a read timed in the same minutes and in
    the same way as the case. Against machine_limits' read (the best of 5 runs, minutes earlier)
    it measured the machine's moment: that read gave 30-36 GB/s in some runs and 60-62 in others
    while the L2 case's p50 stayed at 33-37 GB/s (geon's read alone, the best of 5 runs nine
    times in a row: 30.0-46.3 GB/s)."""
    elems = c["bytes"] // 4
    path = read_model(os.path.join(out_dir, "read_%d.onnx" % elems), elems)
    feeds = {"x": np.ones(elems, np.float32)}
    return {"read@" + r: (OPEN[r](path, threads)[1], feeds) for r in ("geon", "onnxruntime")}


def creation_rounds(row, runtimes, path, args):
    """Session creation is timed over `--creations` fresh sessions per runtime, in rounds whose
    order rotates, each session released before the next is made. One creation alone measured
    the machine as much as the runtime: the first runtime of a case met memory this virtual
    machine had never handed out (the host backs each page at first touch, ten times slower
    than reusing one), and the file cache was warm only for those after it."""
    import gc

    samples = {r: [row[r]["create_s"]] for r in runtimes}
    for k in range(1, args.creations):
        for r in runtimes[k % len(runtimes):] + runtimes[:k % len(runtimes)]:
            gc.collect()
            created, run = OPEN[r](path, args.threads)
            del run
            samples[r].append(created)
    gc.collect()
    for r, s in samples.items():
        row[r]["create_s"] = float(np.median(s))
        row[r]["create_samples_s"] = s


def best_seconds(run, feeds, repeats):
    run(feeds)
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        run(feeds)
        best = min(best, time.perf_counter() - start)
    return best


def machine_limits(threads, out_dir):
    rng = np.random.default_rng(1)
    n = 1024
    mm = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["c"])], "mm",
                           [helper.make_tensor_value_info("a", TensorProto.FLOAT, [n, n])],
                           [helper.make_tensor_value_info("c", TensorProto.FLOAT, [n, n])],
                           [numpy_helper.from_array(rng.standard_normal((n, n)).astype(np.float32), "b")])
    # 512 channels at 14x14: a layer geon runs with a direct algorithm. Its Winograd ones (3x3
    # layers of up to 128 channels with oneDNN on AVX-512, up to 256 with geon's own on AVX2) do
    # fewer multiply-adds than the count below, so they would measure an algorithm's effective
    # rate, not the machine's.
    c, hw = 512, 14
    conv = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])], "conv",
                             [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, hw, hw])],
                             [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, c, hw, hw])],
                             [numpy_helper.from_array(rng.standard_normal((c, c, 3, 3)).astype(np.float32), "w")])
    elems = 1 << 26

    def saved(name, graph):
        path = os.path.join(out_dir, "limit_%s.onnx" % name)
        return cases._save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)

    # Each limit is the better of geon's and ONNX Runtime's kernels for it, so that neither
    # runtime's weak kernel lowers the bar the cases are measured against.
    flops, by_runtime = {}, {}
    for name, path, feeds, work in [
        ("matmul", saved("matmul", mm), {"a": rng.standard_normal((n, n)).astype(np.float32)}, 2.0 * n ** 3),
        ("conv3x3", saved("conv3x3", conv), {"x": rng.standard_normal((1, c, hw, hw)).astype(np.float32)},
         2.0 * c * c * 9 * hw * hw),
        ("read", read_model(os.path.join(out_dir, "limit_read.onnx"), elems), {"x": np.ones(elems, np.float32)},
         4.0 * elems),
    ]:
        by_runtime[name] = {}
        for r in ("geon", "onnxruntime"):
            _, run = OPEN[r](path, threads)
            by_runtime[name][r] = work / best_seconds(run, feeds, 10 if name != "read" else 5) / 1e9
            del run
        flops[name] = max(by_runtime[name].values())
    read_gbs = flops.pop("read")
    return {"fp32_peak_gflops": max(flops.values()), "gflops_by_kernel": flops, "read_gb_per_s": read_gbs,
            "by_runtime": by_runtime}


def gap_p99(trace, p50_ms, threads):
    """The p99 over p50 that runs of p50_ms would have over the recorded interruptions (nan for
    runs too long for the recording)."""
    try:
        return interruptions.gap_p99(trace, p50_ms / 1e3, threads) * 1e3 / p50_ms
    except ValueError:
        return math.nan


# ---- the report ----------------------------------------------------------------------------------


def fmt(value, spec):
    return spec % value if isinstance(value, (int, float)) and not math.isnan(value) else "-"


def print_table(rows, limits):
    print("\nmachine: %d cores; fp32 peak %.1f GFLOP/s (%s), streaming read %.1f GB/s" % (
        os.cpu_count(), limits["fp32_peak_gflops"],
        ", ".join("%s %.1f" % kv for kv in limits["gflops_by_kernel"].items()), limits["read_gb_per_s"]))
    gaps = limits["interruptions"]
    print("interruptions: %.0f a second on each CPU, median %.1f us, %.2f%% of the CPU" % (
        gaps["per_second"], gaps["median_us"], 100 * gaps["cpu_share"]))
    head = "%-18s" % "case" + "".join("%22s" % ("%s p50/p99 ms" % r[:4]) for r in RUNTIMES)
    print(head + "%7s%8s%9s%11s%24s%20s%6s" % ("runs", "ratio", "limit", "gaps p99", "create s g/o/v",
                                                 "RSS MB g/o/v", "ok"))
    for row in rows:
        line = "%-18s" % row["case"]
        for r in RUNTIMES:
            d = row.get(r, {})
            line += "%22s" % ("%s / %s" % (fmt(d.get("p50_ms"), "%.3f"), fmt(d.get("p99_ms"), "%.3f"))
                              if "p50_ms" in d else d.get("error", "-")[:20])
        line += "%7s" % min((row[r]["runs"] for r in RUNTIMES if "runs" in row.get(r, {})), default="-")
        line += "%8s%9s%11s" % (fmt(row.get("ratio"), "%.2f"), fmt(row.get("limit_fraction"), "%.0f%%"),
                                 fmt(row.get("gap_p99"), "%.2fx"))
        line += "%24s" % "/".join(fmt(row.get(r, {}).get("create_s"), "%.2f") for r in RUNTIMES)
        line += "%20s" % "/".join(fmt(row.get(r, {}).get("peak_rss_mb"), "%.0f") for r in RUNTIMES)
        line += "%6s" % {True: "yes", False: "NO"}.get(row.get("outputs_agree"), "-")
        print(line)
    for row in rows:
        if "read_reference" in row:
            print("%s: %.1f GB/s at geon's p50; a streaming read of its bytes timed in its blocks: %s "
                  "(p50s; limit column: the better); %.0f%% of the best-of-5 read above" % (
                      row["case"], row["gb_per_s"],
                      ", ".join("%s %.1f" % (r.split("@")[1], v) for r, v in row["read_reference"].items()),
                      row["fraction_of_best_read"]))
        if "agreement" in row:
            print("%s against ONNX Runtime: %s" % (row["case"], row["agreement"]))
    ratios = [row["ratio"] for row in rows if "ratio" in row]
    if ratios:
        print("geometric mean of the ratios (faster peer p50 / geon p50): %.3f over %d cases"
              % (math.exp(sum(math.log(r) for r in ratios) / len(ratios)), len(ratios)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", nargs="*", help="cases to run (default: all): %s" % ", ".join(cases.CASES))
    ap.add_argument("--threads", type=int, default=2, help="intra-op threads of every runtime")
    ap.add_argument("--seconds", type=float, default=20.0,
                    help="time budget of a case's timed runs (the --settle-ms pauses come on top)")
    ap.add_argument("--runs", type=int, default=1000, help="timed runs per runtime at most")
    ap.add_argument("--min-runs", type=int, default=200,
                    help="timed runs per runtime at least, past --seconds if need be (for the p99)")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--block-ms", type=float, default=100.0,
                    help="milliseconds of one runtime's runs before the next runtime's (0: run by run)")
    ap.add_argument("--settle-ms", type=float, default=20.0,
                    help="pause before each block, for the last runtime's pool threads to go idle")
    ap.add_argument("--block-warmup", type=int, default=1,
                    help="untimed runs at the start of each block (the caches hold the last runtime's data)")
    ap.add_argument("--creations", type=int, default=3,
                    help="fresh sessions per runtime whose median is the creation time")
    ap.add_argument("--interruption-seconds", type=float, default=6.0,
                    help="length of the recording of the machine's interruptions")
    ap.add_argument("--no-memory", dest="memory", action="store_false", help="skip peak RSS children")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--out", help="folder for the generated models (default: a temporary one)")
    ap.add_argument("--rss-child", nargs=2, metavar=("RUNTIME", "CASE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    out_dir = args.out or tempfile.mkdtemp(prefix="geon-bench-")
    os.makedirs(out_dir, exist_ok=True)
    if args.rss_child:
        rss_child(args.rss_child[0], args.rss_child[1], args.threads, out_dir)
        return
    unknown = [c for c in args.cases if c not in cases.CASES]
    if unknown:
        ap.error("unknown case(s): %s" % ", ".join(unknown))
    limits = machine_limits(args.threads, out_dir)
    trace = interruptions.record(args.threads, args.interruption_seconds)
    limits["interruptions"] = interruptions.summary(trace)
    rows = []
    for name in args.cases or list(cases.CASES):
        c = cases.CASES[name](out_dir, np.random.default_rng(0))
        row = bench_case(name, c, args, out_dir)
        p50 = row["geon"].get("p50_ms")
        if p50 and "flops" in c:
            row["limit_fraction"] = 100.0 * c["flops"] / (p50 / 1e3) / 1e9 / limits["fp32_peak_gflops"]
        if p50 and "bytes" in c:
            row["gb_per_s"] = c["bytes"] / (p50 / 1e3) / 1e9
            row["limit_fraction"] = 100.0 * row["gb_per_s"] / max(row["read_reference"].values())
            row["fraction_of_best_read"] = 100.0 * row["gb_per_s"] / limits["read_gb_per_s"]
        if p50:
            row["gap_p99"] = gap_p99(trace, p50, args.threads)
        rows.append(row)
        print("%s done" % name, file=sys.stderr)
    print_table(rows, limits)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"threads": args.threads, "limits": limits, "cases": rows}, f, indent=1)


if __name__ == "__main__":
    main()
