"""geon and ONNX Runtime over the same ONNX backend test directories, with the same comparison
(dtype and shape exactly; floats |got - expected| <= atol + rtol * |expected|, NaN equal to
NaN, infinities equal; rtol 1e-3 and atol 1e-7 unless the test's data.json says otherwise;
integers, bools and strings exactly). Prints, per data set, both pass counts, the tests ONNX
Runtime passes and geon does not (the target is none), and the tests geon passes and ONNX
Runtime does not.

  scripts/conformance_vs_ort.py [--runner build/tools/geon-test-runner] [--json out.json]
                                [SET=DIR ...]     (default: the eight sets of both copies)

geon runs through geon-test-runner (its --json report); ONNX Runtime runs in worker processes,
one test at a time, so a test that crashes ONNX Runtime is that test's failure and the rest go on.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

SETS = ("node", "simple", "pytorch-converted", "pytorch-operator")
DEBIAN_DATA = "/usr/share/libonnx-testdata/data"


def default_sets():
    import onnx

    wheel = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
    out = [("wheel/" + s, os.path.join(wheel, s)) for s in SETS]
    out += [("debian/" + s, os.path.join(DEBIAN_DATA, s)) for s in SETS]
    return [(name, d) for name, d in out if os.path.isdir(d)]


def test_dirs(directory):
    return sorted(
        os.path.join(directory, t)
        for t in os.listdir(directory)
        if os.path.isfile(os.path.join(directory, t, "model.onnx"))
    )


# ---- the ONNX Runtime side (runs in a worker process) ----------------------------------------


def tolerance(test_dir):
    rtol, atol = 1e-3, 1e-7
    path = os.path.join(test_dir, "data.json")
    if os.path.isfile(path):
        with open(path) as f:
            data = json.load(f)
        rtol, atol = data.get("rtol", rtol), data.get("atol", atol)
    return rtol, atol


def load_value(path, type_proto):
    """A .pb file as the Python value ONNX Runtime takes: array, list, dict or None."""
    import onnx
    from onnx import numpy_helper

    kind = type_proto.WhichOneof("value")
    with open(path, "rb") as f:
        raw = f.read()
    if kind == "sequence_type":
        proto = onnx.SequenceProto()
        proto.ParseFromString(raw)
        return numpy_helper.to_list(proto)
    if kind == "optional_type":
        proto = onnx.OptionalProto()
        proto.ParseFromString(raw)
        return numpy_helper.to_optional(proto)
    if kind == "map_type":
        proto = onnx.MapProto()
        proto.ParseFromString(raw)
        return numpy_helper.to_dict(proto)
    proto = onnx.TensorProto()
    proto.ParseFromString(raw)
    return numpy_helper.to_array(proto)


def proto_name(path, type_proto):
    import onnx

    kind = type_proto.WhichOneof("value")
    cls = {"sequence_type": onnx.SequenceProto, "optional_type": onnx.OptionalProto,
           "map_type": onnx.MapProto}.get(kind, onnx.TensorProto)
    proto = cls()
    with open(path, "rb") as f:
        proto.ParseFromString(f.read())
    return proto.name


def same(got, want, rtol, atol):
    """None when they match, else why not."""
    import numpy as np

    if want is None or got is None:
        return None if want is None and got is None else "optional presence differs"
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return "sequence length differs"
        for g, w in zip(got, want):
            why = same(g, w, rtol, atol)
            if why:
                return why
        return None
    if isinstance(want, dict):
        return None if got == want else "map differs"
    got = np.asarray(got)
    want = np.asarray(want)
    if got.dtype != want.dtype:
        return "dtype %s, expected %s" % (got.dtype, want.dtype)
    if got.shape != want.shape:
        return "shape %s, expected %s" % (got.shape, want.shape)
    if want.dtype.kind in "fc" or want.dtype.kind == "V" or "float" in str(want.dtype):
        g = got.astype(np.complex128 if want.dtype.kind == "c" else np.float64)
        w = want.astype(g.dtype)
        parts = [(g.real, w.real), (g.imag, w.imag)] if want.dtype.kind == "c" else [(g, w)]
        for a, b in parts:
            nan = np.isnan(a) | np.isnan(b)
            inf = np.isinf(a) | np.isinf(b)
            with np.errstate(invalid="ignore"):
                ok = np.where(nan, np.isnan(a) & np.isnan(b),
                              np.where(inf, a == b, np.abs(a - b) <= atol + rtol * np.abs(b)))
            if not ok.all():
                return "%d values differ" % int((~ok).sum())
        return None
    if want.dtype.kind in "OSU":
        return None if [str(x) for x in got.ravel()] == [str(x) for x in want.ravel()] else "values differ"
    return None if np.array_equal(got, want) else "values differ"


def run_ort_test(test_dir):
    """('pass' | 'fail' | 'error', message) for one test directory."""
    import glob

    import onnx
    import onnxruntime as ort

    model_path = os.path.join(test_dir, "model.onnx")
    try:
        model = onnx.load(model_path)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 4
        sess = ort.InferenceSession(model_path, opts, providers=["CPUExecutionProvider"])
    except Exception as e:  # noqa: BLE001 - any refusal is ONNX Runtime's failure on this test
        return "error", "create: " + str(e).splitlines()[0][:200]
    inits = {i.name for i in model.graph.initializer}
    inputs = [v for v in model.graph.input if v.name not in inits]
    by_name = {v.name: v for v in inputs}
    outputs = list(model.graph.output)
    rtol, atol = tolerance(test_dir)
    sets = sorted(glob.glob(os.path.join(test_dir, "test_data_set_*")))
    if not sets:
        return "error", "no test_data_set"
    for data_set in sets:
        files = sorted(glob.glob(os.path.join(data_set, "input_*.pb")),
                       key=lambda p: int(p.rsplit("_", 1)[1].split(".")[0]))
        feeds = {}
        try:
            for i, path in enumerate(files):
                if i >= len(inputs):
                    break
                name = proto_name(path, inputs[i].type)
                info = by_name.get(name, inputs[i])
                feeds[info.name] = load_value(path, info.type)
            got = sess.run(None, feeds)
        except Exception as e:  # noqa: BLE001
            return "fail", "run: " + str(e).splitlines()[0][:200]
        for k, out in enumerate(outputs):
            path = os.path.join(data_set, "output_%d.pb" % k)
            if not os.path.exists(path):
                continue
            want = load_value(path, out.type)
            why = same(got[k], want, rtol, atol)
            if why:
                return "fail", "%s: output '%s': %s" % (os.path.basename(data_set), out.name, why)
    return "pass", ""


def worker(dirs):
    """Runs each test and prints one JSON line per test, flushing as it goes."""
    for d in dirs:
        print(json.dumps({"start": d}), flush=True)
        status, message = run_ort_test(d)
        print(json.dumps({"done": d, "status": status, "message": message}), flush=True)


def run_ort(dirs, jobs):
    """{test dir: (status, message)}, with workers restarted after a crash."""
    results = {}
    chunks = [dirs[i::jobs] for i in range(jobs)]
    pending = [list(c) for c in chunks if c]
    while pending:
        procs = []
        for chunk in pending:
            p = subprocess.Popen([sys.executable, __file__, "--ort-worker"] + chunk,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            procs.append((p, chunk))
        pending = []
        for p, chunk in procs:
            current = None
            for line in p.stdout:
                msg = json.loads(line)
                if "start" in msg:
                    current = msg["start"]
                else:
                    results[msg["done"]] = (msg["status"], msg["message"])
                    current = None
            p.wait()
            if current is not None:  # it died inside this test
                results[current] = ("fail", "ONNX Runtime crashed (exit %d)" % p.returncode)
                rest = chunk[chunk.index(current) + 1:]
                if rest:
                    pending.append(rest)
    return results


# ---- the geon side and the report --------------------------------------------------------------


def run_geon(runner, directory):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        subprocess.run([runner, directory, "--json", report], capture_output=True, text=True)
        if not os.path.exists(report):
            sys.exit("geon-test-runner gave no report for " + directory)
        with open(report) as f:
            return {r["name"]: (r["status"], r.get("message", "")) for r in json.load(f)}


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--ort-worker":
        worker(sys.argv[2:])
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sets", nargs="*", help="SET=DIR pairs (default: both copies' eight sets)")
    ap.add_argument("--runner", default="build/tools/geon-test-runner")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--json", help="write the per-test verdicts of both runtimes here")
    args = ap.parse_args()
    sets = [tuple(s.split("=", 1)) for s in args.sets] if args.sets else default_sets()

    rows, detail = [], {}
    for name, directory in sets:
        geon = run_geon(args.runner, directory)
        ort_by_dir = run_ort(test_dirs(directory), args.jobs)
        ort = {os.path.basename(d): v for d, v in ort_by_dir.items()}
        names = sorted(set(geon) | set(ort))
        g_pass = {n for n in names if geon.get(n, ("",))[0] == "pass"}
        o_pass = {n for n in names if ort.get(n, ("",))[0] == "pass"}
        g_skip = sum(1 for n in names if geon.get(n, ("",))[0] == "unsupported")
        g_fail = len(names) - len(g_pass) - g_skip
        rows.append((name, len(names), len(o_pass), len(g_pass), g_fail, g_skip))
        behind = sorted(o_pass - g_pass)
        ahead = sorted(g_pass - o_pass)
        print("\n== %s: %d tests; ONNX Runtime passes %d, geon passes %d" % (name, len(names), len(o_pass), len(g_pass)))
        print("ONNX Runtime passes, geon does not (%d):" % len(behind))
        for n in behind:
            print("  %s  [geon: %s]" % (n, geon.get(n, ("missing", ""))[1][:160]))
        print("geon passes, ONNX Runtime does not (%d):" % len(ahead))
        for n in ahead:
            print("  %s  [ORT: %s]" % (n, ort.get(n, ("missing", ""))[1][:160]))
        detail[name] = {n: {"geon": geon.get(n), "onnxruntime": ort.get(n)} for n in names}

    import onnxruntime

    print("\n| data set | tests | ONNX Runtime %s | geon (pass / fail / skipped) |" % onnxruntime.__version__)
    print("| --- | --- | --- | --- |")
    for name, total, o, g, f, s in rows:
        print("| %s | %d | %d | %d / %d / %d |" % (name, total, o, g, f, s))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(detail, f, indent=1)


if __name__ == "__main__":
    main()
