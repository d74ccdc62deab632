#!/usr/bin/env python3
"""Checks geon-inspect's pictures against the placement report it prints as text.

  check_dot.py INSPECT MODEL OUT_DIR graph     every report node is a box with its op, fused
      members listed, edges between producers and consumers labelled with the report's shapes,
      one colour per kernel set with a legend; the SVG (when Graphviz's dot exists) is XML with
      every box.
  check_dot.py INSPECT MODEL OUT_DIR collapse LAYERS   a stack of LAYERS identical layers is
      drawn once as "xLAYERS"; --no-collapse --max-nodes N draws N boxes and says it was cut.
Exits 77 (ctest's skip) for the SVG part only when dot is missing."""
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

NODE = re.compile(r'^\s*(n\d+) \[label="((?:[^"\\]|\\.)*)", fillcolor="([^"]+)", tooltip="((?:[^"\\]|\\.)*)"\];$')
EDGE = re.compile(r'^\s*(\w+) -> (\w+) \[label="((?:[^"\\]|\\.)*)", tooltip="((?:[^"\\]|\\.)*)"')
LEGEND = re.compile(r'^\s*legend_\d+ \[label="([^"]+)", fillcolor="([^"]+)"\];$')


def unescape(s):
    return s.replace('\\n', '\n').replace('\\"', '"').replace('\\\\', '\\')


def report_of(inspect, model):
    out = subprocess.run([inspect, model], capture_output=True, text=True, check=True).stdout
    return json.loads(out.split("== placement\n", 1)[1])


def parse_dot(text):
    nodes, edges, legend = {}, [], {}
    for line in text.splitlines():
        if m := NODE.match(line):
            nodes[m[1]] = (unescape(m[2]), m[3], unescape(m[4]))
        elif m := EDGE.match(line):
            edges.append((m[1], m[2], unescape(m[3]), unescape(m[4])))
        elif m := LEGEND.match(line):
            legend[m[1]] = m[2]
    return nodes, edges, legend


def shape_text(value):
    dims = ", ".join("?" if d is None else str(d) for d in value["shape"])
    return f"[{dims}] {value['dtype']}"


def check_report_against_onnx(report, model):
    """The report's new fields against the ONNX model itself: every ONNX node is one placed node
    or one member of a fused node (these models fold nothing away), and the graph inputs and
    outputs have the model's dtypes and shapes (dim_param as a string)."""
    import onnx
    m = onnx.load(model)
    placed = []
    for n in report["nodes"]:
        placed += [tuple(x.split(":", 1)) for x in n["members"]] if "members" in n else [(n["op"], n["name"])]
    assert sorted(placed) == sorted((n.op_type, n.name) for n in m.graph.node), placed
    for vi, kind in [(v, "input") for v in m.graph.input] + [(v, "output") for v in m.graph.output]:
        value = report["values"][vi.name]
        t = vi.type.tensor_type
        assert value["kind"] == kind, (vi.name, value)
        assert value["dtype"] == onnx.helper.tensor_dtype_to_np_dtype(t.elem_type).name.replace("float32", "float")
        assert value["shape"] == [d.dim_param if d.dim_param else d.dim_value for d in t.shape.dim], (vi.name, value)
    for n in report["nodes"]:
        for v in n["inputs"] + n["outputs"]:
            assert v == "" or v in report["values"], v
    print("report ok: nodes and members cover the ONNX nodes; inputs and outputs typed as in the model")


def check_graph(inspect, model, out_dir):
    report = report_of(inspect, model)
    check_report_against_onnx(report, model)
    dot_path = os.path.join(out_dir, "graph.dot")
    subprocess.run([inspect, model, "--dot", dot_path], check=True, capture_output=True)
    nodes, edges, legend = parse_dot(open(dot_path).read())
    values = report["values"]
    producer = {o: i for i, n in enumerate(report["nodes"]) for o in n["outputs"] if o}
    colour_of_set = {}
    for i, n in enumerate(report["nodes"]):
        box = f"n{i}"
        assert box in nodes, f"node {i} ({n['name']}) has no box"
        label, colour, tooltip = nodes[box]
        assert n["op"].split(".")[-1] in label.split("\n")[0], (n["op"], label)
        assert tooltip.startswith(n["name"]), (n["name"], tooltip)
        for m in n.get("members", []):
            assert m in label, f"member {m} missing from {label!r}"
        constants = [v for v in n["inputs"] if v and values[v]["kind"] == "constant"]
        for v in constants[:3]:
            assert "const " in label and shape_text(values[v]) in label, (v, label)
        assert colour_of_set.setdefault(n["set"], colour) == colour, f"two colours for {n['set']}"
        for v in n["inputs"]:
            if v in producer:
                edge = [e for e in edges if e[0] == f"n{producer[v]}" and e[1] == box and e[3] == v]
                assert edge, f"no edge for {v} into {box}"
                assert edge[0][2].startswith(shape_text(values[v])), (edge[0][2], values[v])
    assert len(set(colour_of_set.values())) == len(colour_of_set), "sets share a colour"
    assert legend == colour_of_set, (legend, colour_of_set)
    fused = sum(1 for n in report["nodes"] if n.get("members"))
    print(f"dot ok: {len(report['nodes'])} boxes, {fused} fused, {len(edges)} edges, sets {sorted(legend)}")

    if not shutil.which("dot"):
        print("SKIP the SVG check: Graphviz's dot is not installed")
        sys.exit(77)
    svg_path = os.path.join(out_dir, "graph.svg")
    subprocess.run([inspect, model, "--svg", svg_path], check=True, capture_output=True)
    root = ET.parse(svg_path).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    titles = {t.text for g in root.iter(f"{ns}g") if g.get("class") == "node" for t in g.iter(f"{ns}title")}
    missing = {f"n{i}" for i in range(len(report["nodes"]))} - titles
    assert not missing, f"boxes missing from the SVG: {sorted(missing)}"
    print("svg ok")


def check_collapse(inspect, model, out_dir, layers):
    report = report_of(inspect, model)
    total = len(report["nodes"])
    per_layer = (total - 1) // layers  # the stack's layers and a head node
    dot_path = os.path.join(out_dir, "stack.dot")
    subprocess.run([inspect, model, "--dot", dot_path], check=True, capture_output=True)
    text = open(dot_path).read()
    nodes, edges, _ = parse_dot(text)
    assert f"×{layers}" in text, "no ×N cluster"
    assert len(nodes) == total - (layers - 1) * per_layer, (len(nodes), total, per_layer)
    assert "layer0/" in text and f"layer{layers - 1}/" not in text, "later layers drawn"

    cut = os.path.join(out_dir, "stack_cut.dot")
    done = subprocess.run([inspect, model, "--dot", cut, "--no-collapse", "--max-nodes", "10"],
                          check=True, capture_output=True, text=True)
    cut_text = open(cut).read()
    cut_nodes, _, _ = parse_dot(cut_text)
    assert len(cut_nodes) == 10, len(cut_nodes)
    assert "graph truncated" in cut_text and "TRUNCATED" in cut_text, "the picture does not say it was cut"
    assert f"the first 10 of {total} boxes drawn" in done.stderr, done.stderr

    full = os.path.join(out_dir, "stack_full.dot")
    subprocess.run([inspect, model, "--dot", full, "--no-collapse", "--max-nodes", "0"], check=True,
                   capture_output=True)
    assert len(parse_dot(open(full).read())[0]) == total
    print(f"collapse ok: {total} nodes, {layers} layers of {per_layer} drawn once")


def main():
    inspect, model, out_dir, mode = sys.argv[1:5]
    os.makedirs(out_dir, exist_ok=True)
    if mode == "graph":
        check_graph(inspect, model, out_dir)
    else:
        check_collapse(inspect, model, out_dir, int(sys.argv[5]))


if __name__ == "__main__":
    main()
