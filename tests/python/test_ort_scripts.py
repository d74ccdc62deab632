"""Scripts written for onnxruntime (tests/python/ort_scripts/*.py, `import onnxruntime as
ort`) run twice, each in a fresh directory: with the real onnxruntime, and with onnxruntime
aliased to geon (ort_scripts/_as_geon.py). What they print must be identical (names, shapes,
metadata, exception class names), and the arrays they save in results.npz equal in dtype and
shape and close in value: rtol 1e-3, atol 1e-5, the tolerance of the other session tests
(MatMul accumulation order differs between oneDNN and onnxruntime's MLAS)."""

import glob
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import _paths

RTOL, ATOL = 1e-3, 1e-5
FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ort_scripts")
SCRIPTS = sorted(p for p in glob.glob(os.path.join(FOLDER, "*.py")) if not os.path.basename(p).startswith("_"))


def _run(script, with_geon):
    """(returncode, stdout, stderr, {name: array}) of one run in a fresh directory."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(_paths.REPO, "python"), env.get("PYTHONPATH", "")])
    command = [sys.executable]
    if with_geon:
        command.append(os.path.join(FOLDER, "_as_geon.py"))
    command.append(script)
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=300)
        arrays = {}
        results = os.path.join(folder, "results.npz")
        if os.path.exists(results):
            with np.load(results) as saved:
                arrays = {name: saved[name] for name in saved.files}
        leftovers = sorted(set(os.listdir(folder)) - {"results.npz"})
    return done.returncode, done.stdout, done.stderr, arrays, leftovers


class OrtScriptsRunTheSameOnGeon(unittest.TestCase):
    def test_there_are_scripts(self):
        self.assertGreaterEqual(len(SCRIPTS), 5)

    def check_script(self, script):
        code, out, err, arrays, left = _run(script, with_geon=False)
        self.assertEqual(code, 0, "the script fails with onnxruntime itself:\n" + err)
        g_code, g_out, g_err, g_arrays, g_left = _run(script, with_geon=True)
        self.assertEqual(g_code, 0, "the script fails with geon:\n" + g_err)
        self.assertEqual(g_out.splitlines(), out.splitlines())
        self.assertGreater(len(arrays), 0, "the script saves no results")
        self.assertEqual(sorted(g_arrays), sorted(arrays))
        for name, want in arrays.items():
            got = g_arrays[name]
            with self.subTest(array=name):
                self.assertEqual(got.dtype, want.dtype)
                self.assertEqual(got.shape, want.shape)
                np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
        self.assertEqual(g_left, left, "files left behind differ")


def _add_tests():
    for script in SCRIPTS:
        name = os.path.splitext(os.path.basename(script))[0]

        def test(self, script=script):
            self.check_script(script)

        test.__name__ = "test_" + name
        test.__doc__ = "ort_scripts/%s.py prints and saves the same with geon as with onnxruntime" % name
        setattr(OrtScriptsRunTheSameOnGeon, test.__name__, test)


_add_tests()

if __name__ == "__main__":
    unittest.main()
