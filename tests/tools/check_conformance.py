"""Runs geon-test-runner over whole ONNX backend data sets and holds the results to the floor
recorded in conformance_counts.txt: a data set's passed count may not drop and its failed count
may not rise (a kernel that starts failing, or a test that stops running, fails this test).
GEON_UPDATE_COUNTS=1 rewrites the file with the current counts instead.

usage: check_conformance.py RUNNER COUNTS_FILE NAME=DIR [NAME=DIR ...]
"""

import json
import os
import subprocess
import sys
import tempfile


def read_counts(path):
    counts = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if line:
                name, passed, failed = line
                counts[name] = (int(passed), int(failed))
    return counts


def run_set(runner, directory):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        done = subprocess.run([runner, directory, "--json", report], capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit("geon-test-runner failed on %s (exit %d):\n%s" % (directory, done.returncode, done.stderr))
        with open(report) as f:
            results = json.load(f)
    statuses = [r["status"] for r in results]
    failed = sorted(r["name"] for r in results if r["status"] == "fail")
    return statuses.count("pass"), statuses.count("fail"), len(statuses), failed


def main():
    runner, counts_path, sets = sys.argv[1], sys.argv[2], [a.split("=", 1) for a in sys.argv[3:]]
    recorded = read_counts(counts_path)
    now, problems = {}, []
    for name, directory in sets:
        passed, failed, total, failed_names = run_set(runner, directory)
        now[name] = (passed, failed)
        print("%s: %d passed, %d failed, %d skipped" % (name, passed, failed, total - passed - failed))
        if name not in recorded:
            problems.append("%s has no recorded counts (run with GEON_UPDATE_COUNTS=1)" % name)
            continue
        floor_passed, ceiling_failed = recorded[name]
        if passed < floor_passed:
            problems.append("%s: %d passed, fewer than the %d recorded" % (name, passed, floor_passed))
        if failed > ceiling_failed:
            problems.append("%s: %d failed, more than the %d recorded: %s" % (name, failed, ceiling_failed, ", ".join(failed_names)))
    if os.environ.get("GEON_UPDATE_COUNTS") == "1":
        with open(counts_path, "w") as f:
            f.write("# geon-test-runner results per backend data set: name passed failed\n")
            f.write("# (tests/tools/check_conformance.py; GEON_UPDATE_COUNTS=1 rewrites this file)\n")
            for name, (passed, failed) in sorted(now.items()):
                f.write("%s %d %d\n" % (name, passed, failed))
        print("counts rewritten: " + counts_path)
        return
    if problems:
        sys.exit("conformance dropped:\n  " + "\n  ".join(problems))
    print("conformance counts held")


if __name__ == "__main__":
    main()
