"""Runs every node, simple and PyTorch test of the ONNX backend data on "_cpu" through
geon.backend and prints where each stands against test_backend.py's lists, so that INCLUDE can
be refreshed when kernels are added. Not a test itself (it asserts nothing); run by hand:

    GEON_PROVIDER=build/provider/libgeon_provider.so PYTHONPATH=python \\
        python3 tests/python/list_backend_results.py [--all]

Prints the passing tests that INCLUDE leaves out, the included tests that fail, and with --all
one line per failing test with the first line of its error.
"""

import sys
import unittest

import onnx.backend.test
import onnx.backend.test.loader

import test_backend
import geon.backend


class _Collect(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.passed, self.failed = [], {}

    def addSuccess(self, test):
        self.passed.append(test._testMethodName)

    def _bad(self, test, err, kind):
        lines = str(err[1]).strip().splitlines() or [repr(err[1])]
        self.failed[test._testMethodName] = "%s: %s" % (kind, lines[0][:200])

    def addError(self, test, err):
        self._bad(test, err, "error")

    def addFailure(self, test, err):
        self._bad(test, err, "mismatch")


def stem(name):
    return name[: -len("_cpu")]


def main(argv):
    names = [
        t.name
        for kind in ("node", "simple", "pytorch-converted", "pytorch-operator")
        for t in onnx.backend.test.loader.load_model_tests(kind=kind)
    ]
    runner = onnx.backend.test.BackendTest(geon.backend, __name__)
    runner.include("^(?:%s)_cpu$" % "|".join(names))
    suite = unittest.TestSuite()
    for case in runner.test_cases.values():
        suite.addTests(unittest.defaultTestLoader.loadTestsFromTestCase(case))
    result = _Collect()
    suite.run(result)
    print("%d tests: %d pass, %d fail" % (len(names), len(result.passed), len(result.failed)))
    left_out = sorted(stem(n) for n in result.passed if not test_backend._included(stem(n)))
    print("passing, not included (%d): %s" % (len(left_out), " ".join(left_out)))
    failing = sorted(stem(n) for n in result.failed if test_backend._included(stem(n)))
    print("included, failing (%d): %s" % (len(failing), " ".join(failing)))
    if "--all" in argv:
        for name, why in sorted(result.failed.items()):
            print("%s  %s" % (stem(name), why))


if __name__ == "__main__":
    main(sys.argv[1:])
