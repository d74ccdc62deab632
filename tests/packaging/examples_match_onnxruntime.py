#!/usr/bin/env python3
"""Runs the examples built against an installed geon and checks what they print against
independent references: onnxruntime on the same inputs (run_model_c, run_model_cpp,
provider_contract), the ONNX model's own declarations (list_inputs_outputs), and the placement
report that the installed geon-run writes, read with Python's json (placement_report).

Usage: examples_match_onnxruntime.py PREFIX EXAMPLES_BUILD_DIR GEON_SOURCE_DIR [EXAMPLE...]
(no EXAMPLE: all of them; the pkg-config test passes its own build of run_model_c).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort

import packaging_env

DTYPE_NAMES = {1: "float", 7: "int64"}


def run(args):
    out = subprocess.run(args, capture_output=True, text=True, env=packaging_env.clean_env())
    assert out.returncode == 0, "%s failed (%d):\n%s%s" % (args, out.returncode, out.stdout, out.stderr)
    return out.stdout


def example_input(shape, step=1):
    """Element i is ((step * i % 17) - 8) / 8, as the examples fill their inputs."""
    i = np.arange(int(np.prod(shape)), dtype=np.int64)
    return (((step * i) % 17 - 8) / 8).astype(np.float32).reshape(shape)


def printed_outputs(text):
    """{name: array} from 'output NAME: [dims]' lines, each followed by a line of values."""
    lines = text.splitlines()
    outs = {}
    for k, line in enumerate(lines):
        m = re.fullmatch(r"output (\S+): \[([0-9, ]*)\]", line)
        if m:
            shape = [int(d) for d in m.group(2).split(",") if d.strip()]
            outs[m.group(1)] = np.array([float(v) for v in lines[k + 1].split()], np.float32).reshape(shape)
    return outs


def printed_inputs(text):
    return {m.group(1): [int(d) for d in m.group(2).split(",")]
            for m in re.finditer(r"^input (\S+): \[([0-9, ]*)\]$", text, re.M)}


def expect_close(got, want, what):
    scale = max(1.0, float(np.max(np.abs(want))))
    err = float(np.max(np.abs(got - want))) if want.size else 0.0
    assert got.shape == want.shape, "%s: shape %s, onnxruntime %s" % (what, got.shape, want.shape)
    assert err <= 1e-4 * scale, "%s: max difference %g from onnxruntime" % (what, err)
    print("%s matches onnxruntime (max difference %.3g)" % (what, err))


def check_run_model(exe, model):
    text = run([exe, model])
    feeds = {name: example_input(shape) for name, shape in printed_inputs(text).items()}
    want = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feeds)
    names = [o.name for o in onnx.load(model).graph.output]
    got = printed_outputs(text)
    assert sorted(got) == sorted(names), (got.keys(), names)
    for name, w in zip(names, want):
        expect_close(got[name], w, "%s %s output %s" % (os.path.basename(exe), os.path.basename(model), name))


def check_list(exe, model):
    text = run([exe, model])
    graph = onnx.load(model).graph
    inits = {i.name for i in graph.initializer}
    want = []
    for kind, values in (("input", [v for v in graph.input if v.name not in inits]), ("output", graph.output)):
        for v in values:
            t = v.type.tensor_type
            dims = ", ".join(d.dim_param or str(d.dim_value) for d in t.shape.dim)
            want.append("%s %s: %s [%s]" % (kind, v.name, DTYPE_NAMES[t.elem_type], dims))
    assert text.splitlines() == want, "printed:\n%s\nthe model declares:\n%s" % (text, "\n".join(want))
    print("list_inputs_outputs %s: %d lines as the model declares" % (os.path.basename(model), len(want)))


def check_contract(exe, model):
    text = run([exe, model])
    assert re.search(r"^node det \(Det\): unclaimed \(.*cpu\.dnnl: no kernel for Det.*\), run by the host$", text, re.M), text
    assert re.search(r"^node abs \(Abs\): unclaimed \(.*cpu\.dnnl: no kernel for Abs.*\), run by the host$", text, re.M), text
    assert re.search(r"^node square \(MatMul\): subgraph \d+ on cpu\.dnnl", text, re.M), text
    x = example_input([2, 3, 3], step=7)
    want = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    expect_close(printed_outputs(text)["y"], want, "provider_contract y")


def check_placement(exe, model, prefix):
    text = run([exe, model])
    with tempfile.TemporaryDirectory() as tmp:
        report_path = os.path.join(tmp, "report.json")
        run([os.path.join(prefix, "bin", "geon-run"), model, "--dim", "batch=1", "--report", report_path])
        report = json.load(open(report_path))
    want = []
    for n in report["nodes"]:
        want.append("node %s: %s on %s (%s, subgraph %d)" % (n["name"], n["op"], n["set"], n["device"], n["subgraph"]))
        want += ["  refused by %s: %s" % (r["set"], r["reason"]) for r in n["refusals"]]
    want += ["subgraph %d: %d nodes on %s" % (s["index"], len(s["nodes"]), s["set"]) for s in report["subgraphs"]]
    want.append("transfers: %d" % len(report["transfers"]))
    assert text.splitlines() == want, "printed:\n%s\ngeon-run's report says:\n%s" % (text, "\n".join(want))
    assert "refused by" in text, "the CNN has a node that a kernel set refuses (Flatten on cpu.dnnl)"
    print("placement_report: %d nodes as in geon-run's report" % len(report["nodes"]))


def main():
    prefix, build, source = (os.path.realpath(a) for a in sys.argv[1:4])
    only = set(sys.argv[4:])
    models = os.path.join(source, "models")
    mlp, cnn = os.path.join(models, "mlp.onnx"), os.path.join(models, "cnn.onnx")
    det_chain = os.path.join(source, "examples", "models", "det_chain.onnx")

    def exe(name):
        return os.path.join(build, name)

    checks = {
        "run_model_c": lambda: check_run_model(exe("run_model_c"), mlp),
        "run_model_cpp": lambda: check_run_model(exe("run_model_cpp"), cnn),
        "list_inputs_outputs": lambda: (check_list(exe("list_inputs_outputs"), mlp),
                                        check_list(exe("list_inputs_outputs"), cnn)),
        "provider_contract": lambda: check_contract(exe("provider_contract"), det_chain),
        "placement_report": lambda: check_placement(exe("placement_report"), cnn, prefix),
    }
    for name, check in checks.items():
        if not only or name in only:
            check()
    print("examples ok")


if __name__ == "__main__":
    main()
