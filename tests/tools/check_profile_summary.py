#!/usr/bin/env python3
"""Checks the per-op table `geon-run --profile P` prints against the trace it wrote and the
placement report: one row per (op, set), counts = nodes of that op x runs, totals = the trace's
durations, shares summing to 100%, rows sorted by total.
usage: check_profile_summary.py GEON_RUN MODEL OUT_DIR WARMUP REPEAT"""
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict

ROW = re.compile(r"^(\S+)\s+(\S+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)%$")


def main():
    geon_run, model, out_dir, warmup, repeat = sys.argv[1:6]
    os.makedirs(out_dir, exist_ok=True)
    report_path, profile_path = os.path.join(out_dir, "report.json"), os.path.join(out_dir, "profile.json")
    out = subprocess.run([geon_run, model, "--dim", "batch=2", "--perf", "--warmup", warmup, "--repeat",
                          repeat, "--report", report_path, "--profile", profile_path],
                         capture_output=True, text=True, check=True).stdout
    table = out.split("== time per op (all profiled runs)\n", 1)[1].splitlines()
    assert table[0].split() == ["op", "set", "count", "total", "ms", "mean", "us", "share"], table[0]
    rows = [ROW.match(line) for line in table[1:-1]]
    assert all(rows), table
    runs = 1 + int(warmup) + int(repeat)  # the first run, the warmup and the timed runs
    report = json.load(open(report_path))
    nodes_per_op = Counter((n["op"].split(".")[-1], n["set"]) for n in report["nodes"])
    events = [e for e in json.load(open(profile_path))["traceEvents"] if e["ph"] == "X"]
    trace_ms = defaultdict(float)
    for e in events:
        trace_ms[(e["args"]["op"], e["args"]["set"])] += e["dur"] / 1000.0
    seen = {}
    for r in rows:
        key = (r[1], r[2])
        seen[key] = int(r[3])
        assert int(r[3]) == nodes_per_op[key] * runs, (key, r[3], nodes_per_op[key], runs)
        assert abs(float(r[4]) - trace_ms[key]) <= 0.0015 + 1e-6 * trace_ms[key], (key, r[4], trace_ms[key])
        assert abs(float(r[5]) - 1000 * trace_ms[key] / int(r[3])) <= 0.051 + 1e-3 * float(r[5]), r.group(0)
    assert set(seen) == set(nodes_per_op), (seen, nodes_per_op)
    totals = [float(r[4]) for r in rows]
    assert totals == sorted(totals, reverse=True), "rows not sorted by total"
    shares = sum(float(r[6]) for r in rows)
    assert abs(shares - 100.0) <= 0.05 * len(rows) + 0.01, shares
    total_row = table[-1].split()
    assert total_row[0] == "total" and int(total_row[1]) == len(report["nodes"]) * runs, table[-1]
    print(f"profile summary ok: {len(rows)} ops, {int(total_row[1])} node runs, shares {shares:.1f}%")


if __name__ == "__main__":
    main()
