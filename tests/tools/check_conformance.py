"""Runs geon-test-runner over whole ONNX backend data sets and holds them to the tests listed in
conformance_expected/<set>.txt (one exact test name per line, '#' starts a comment): every listed
test must pass; a listed test that fails, is skipped (unsupported) or is gone fails this check,
named with the runner's message. Tests that pass without being listed are only reported.
GEON_UPDATE_CONFORMANCE=1 adds the newly passing tests to the lists (it never removes a name: a
test that stops passing must be looked at, not dropped).

conformance_expected/<set>.excused.txt names, one per line, the tests that cannot pass, each with
its reason ("test_bernoulli  values of a random op cannot be compared"). Where that file exists
the set is held whole: every test is listed or excused, an excused test must exist, and a test
that is neither is a failure of this check. An excused test that passes is reported (a random
op's output can match its data by chance; one that always passes belongs in the list).

usage: check_conformance.py RUNNER LISTS_DIR SET=DIR [SET=DIR ...]   (SET e.g. wheel/node)
"""

import json
import os
import subprocess
import sys
import tempfile

HEADER = """# Tests of this backend data set that geon passes, one exact name per line: each must keep
# passing (tests/tools/check_conformance.py; GEON_UPDATE_CONFORMANCE=1 adds newly passing ones).
"""


def read_list(path):
    if not os.path.exists(path):
        return None
    names = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                names.append(line)
    return names


def read_excused(path):
    """{test name: reason}, or None when the set has no such file."""
    if not os.path.exists(path):
        return None
    excused = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 1)
            if len(parts) < 2:
                sys.exit("%s:%d: '%s' gives no reason" % (path, number, parts[0]))
            excused[parts[0]] = parts[1]
    return excused


def write_list(path, names):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(HEADER)
        f.writelines(n + "\n" for n in sorted(set(names)))


def run_set(runner, directory):
    """{test name: (status, message)} for every test directory under `directory`."""
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        done = subprocess.run([runner, directory, "--json", report], capture_output=True, text=True)
        # Without --fail-on-failure the runner exits 0 whatever the verdicts: anything else is
        # its own error.
        if done.returncode != 0 or not os.path.exists(report):
            sys.exit("geon-test-runner failed on %s (exit %d):\n%s"
                     % (directory, done.returncode, done.stderr))
        with open(report) as f:
            return {r["name"]: (r["status"], r.get("message", "")) for r in json.load(f)}


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    runner, lists_dir = sys.argv[1], sys.argv[2]
    sets = [a.split("=", 1) for a in sys.argv[3:]]
    update = os.environ.get("GEON_UPDATE_CONFORMANCE") == "1"
    problems = []
    for set_name, directory in sets:
        results = run_set(runner, directory)
        passing = {n for n, (status, _) in results.items() if status == "pass"}
        list_path = os.path.join(lists_dir, set_name + ".txt")
        expected = read_list(list_path)
        statuses = [status for status, _ in results.values()]
        counts = {s: statuses.count(s) for s in ("pass", "fail", "unsupported")}
        new = sorted(passing - set(expected or []))
        print("%s: %d passed, %d failed, %d skipped; %d listed, %d passing but not listed"
              % (set_name, counts["pass"], counts["fail"], counts["unsupported"], len(expected or []),
                 len(new)))
        if expected is None:
            if not update:
                problems.append("%s: no list %s (run with GEON_UPDATE_CONFORMANCE=1)" % (set_name, list_path))
        else:
            for name in expected:
                if name not in passing:
                    status, message = results.get(name, ("missing", "no such test in " + directory))
                    problems.append("%s: %s: %s: %s" % (set_name, name, status, message))
        if update and (new or expected is None):
            write_list(list_path, (expected or []) + new)
            print("  added %d test(s) to %s" % (len(new), list_path))
        elif new:
            print("  passing, not listed: " + " ".join(new))
        excused = read_excused(os.path.join(lists_dir, set_name + ".excused.txt"))
        if excused is not None:
            listed = set(expected or []) | (set(new) if update else set())
            for name in sorted(excused):
                if name not in results:
                    problems.append("%s: %s is excused but no such test exists" % (set_name, name))
                elif name in passing:
                    # Not a failure: a random op's output matches its data now and then.
                    print("  %s is excused but passed this time (%s)" % (name, excused[name]))
            for name in sorted(results):
                if name not in listed and name not in excused and name not in passing:
                    status, message = results[name]
                    problems.append("%s: %s is neither listed nor excused: %s: %s"
                                    % (set_name, name, status, message))
            print("  %d excused, every test accounted for" % len(excused)
                  if not any(p.startswith(set_name + ":") for p in problems) else
                  "  %d excused" % len(excused))
    if problems:
        sys.exit("listed conformance tests that do not pass (%d):\n  %s"
                 % (len(problems), "\n  ".join(problems)))
    print("every listed conformance test passes")


if __name__ == "__main__":
    main()
