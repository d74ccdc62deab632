#!/usr/bin/env python3
"""Checks what `geon-run --report R --profile P` wrote: R is the placement report with one
entry per model node, each placed on a kernel set; P is a Chrome trace with one complete
event per node run. Usage: check_report_profile.py REPORT PROFILE NODES RUNS"""
import json
import sys


def main():
    report_path, profile_path, nodes, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    report = json.load(open(report_path))
    placed = report["nodes"]
    assert len(placed) == nodes, f"report has {len(placed)} nodes, expected {nodes}"
    assert all(n["set"] for n in placed), "a node without a kernel set"
    events = json.load(open(profile_path))["traceEvents"]
    complete = [e for e in events if e.get("ph") == "X"]
    assert len(complete) == nodes * runs, f"{len(complete)} events, expected {nodes * runs}"
    assert {e["name"] for e in complete} == {n["name"] for n in placed}, "events do not name the nodes"
    print("report and profile ok")


if __name__ == "__main__":
    main()
