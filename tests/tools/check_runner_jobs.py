#!/usr/bin/env python3
"""Checks geon-test-runner's --jobs, --filter and per-op table on backend test directories:
--jobs 2 prints the same lines (same order, same verdicts, same totals) as --jobs 1; the
tests run are exactly those the filters select (substring, or glob over the whole name,
repeatable: the union), computed here from the directory listing; each failed or skipped test
is put down to an op of its model (read here with onnx) and the table counts them per op.
usage: check_runner_jobs.py RUNNER OUT_DIR DIR [DIR...] -- FILTER [FILTER...]"""
import fnmatch
import json
import os
import pty
import re
import subprocess
import sys
from collections import Counter

import onnx


def selected(dirs, filters):
    names = []
    for d in dirs:
        tests = sorted(e for e in os.listdir(d) if os.path.isfile(os.path.join(d, e, "model.onnx")))
        for t in tests:
            if any(fnmatch.fnmatchcase(t, f) if any(c in f for c in "*?[") else f in t for f in filters):
                names.append((t, os.path.join(d, t)))
    return names


def run(runner, dirs, filters, jobs, report):
    args = [runner, *dirs, "--jobs", str(jobs), "--json", report]
    for f in filters:
        args += ["--filter", f]
    done = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def run_on_terminal(runner, dirs, filters):
    """The runner's output when its stdout is a terminal (a pseudo-terminal here)."""
    leader, follower = pty.openpty()
    args = [runner, *dirs, "--jobs", "2"]
    for f in filters:
        args += ["--filter", f]
    proc = subprocess.Popen(args, stdout=follower, stderr=subprocess.PIPE)
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the runner closed the terminal
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=600)
    os.close(leader)
    return out.decode().replace("\r\n", "\n")


def main():
    sep = sys.argv.index("--")
    runner, out_dir, dirs, filters = sys.argv[1], sys.argv[2], sys.argv[3:sep], sys.argv[sep + 1:]
    os.makedirs(out_dir, exist_ok=True)
    one, two = os.path.join(out_dir, "jobs1.json"), os.path.join(out_dir, "jobs2.json")
    out1 = run(runner, dirs, filters, 1, one)
    out2 = run(runner, dirs, filters, 2, two)
    assert out1 == out2, "--jobs 2 printed otherwise than --jobs 1:\n" + out1 + "\n----\n" + out2
    r1, r2 = json.load(open(one)), json.load(open(two))
    assert [(r["name"], r["status"]) for r in r1] == [(r["name"], r["status"]) for r in r2]

    expected = selected(dirs, filters)
    assert [r["name"] for r in r1] == [n for n, _ in expected], ([r["name"] for r in r1], expected)
    counts = Counter(r["status"] for r in r1)
    totals = f"{counts['pass']} passed, {counts['fail']} failed, {counts['unsupported']} skipped"
    assert totals + "\n" in out1, totals

    lines = [l for l in out1.splitlines() if re.match(r"^(PASS|FAIL|SKIP) ", l)]
    assert len(lines) == len(r1), "one PASS / FAIL / SKIP line per test"
    path_of = dict(expected)
    per_op = Counter()
    for r in r1:
        if r["status"] == "pass":
            assert "op" not in r
            continue
        model_ops = {(n.domain + "." if n.domain not in ("", "ai.onnx") else "") + n.op_type
                     for n in onnx.load(os.path.join(path_of[r["name"]], "model.onnx")).graph.node}
        assert r["op"] in model_ops, (r["name"], r["op"], model_ops)
        per_op[(r["op"], r["status"])] += 1
    table = out1.split("failed and skipped tests per op:\n", 1)
    assert (len(table) == 2) == bool(per_op), "the per-op table is missing or extra"
    if per_op:
        rows = [l.split() for l in table[1].splitlines()[1:]]
        got = {(op, "fail"): int(f) for op, f, s in rows} | {(op, "unsupported"): int(s) for op, f, s in rows}
        assert {k: v for k, v in got.items() if v} == dict(per_op), (got, per_op)
        keys = [(-int(f), -int(s)) for _, f, s in rows]
        assert keys == sorted(keys), "the table is not sorted by failures, then skips"
    # On a terminal: a progress line redrawn in place, FAIL lines above it, no PASS / SKIP lines,
    # and the same totals line.
    tty = run_on_terminal(runner, dirs, filters)
    assert f"\r\x1b[K[{len(r1)}/{len(r1)}] " in tty, tty[-500:]
    assert re.search(r"\[\d+/\d+\] \d+ passed, \d+ failed, \d+ skipped  \S+  (ETA|done)", tty), tty[-500:]
    assert "\nPASS " not in tty and "\nSKIP " not in tty, "PASS / SKIP lines on a terminal"
    assert tty.count("FAIL ") == counts["fail"], tty
    assert totals + "\n" in tty, tty[-500:]
    print(f"runner jobs ok: {len(r1)} tests ({totals}), {len(per_op)} op rows")


if __name__ == "__main__":
    main()
