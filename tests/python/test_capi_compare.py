"""bench/capi_compare.cc, geon against ONNX Runtime through their C APIs: on the committed MLP
both runtimes run (a p50 and a per-node cost each, the model's seven nodes counted) and their
outputs agree; a missing argument is refused with the usage and exit status 2."""

import glob
import os
import subprocess
import unittest

import _paths

BINARY = os.environ.get("GEON_CAPI_COMPARE", "")


def onnxruntime_library():
    try:
        import onnxruntime
    except ImportError:
        return None
    found = glob.glob(os.path.join(os.path.dirname(onnxruntime.__file__), "capi", "libonnxruntime.so*"))
    return found[0] if found else None


@unittest.skipUnless(BINARY and os.path.exists(BINARY), "geon_capi_compare is not built (GEON_BUILD_BENCH off)")
class CapiCompare(unittest.TestCase):
    def test_both_runtimes_run_the_mlp_and_agree(self):
        ort = onnxruntime_library()
        if ort is None:
            self.skipTest("onnxruntime's wheel (with its libonnxruntime.so) is not installed")
        for batch in ("1", "64"):
            out = subprocess.run([BINARY, os.path.join(_paths.REPO, "models", "mlp.onnx"), "--ort", ort,
                                  "--seconds", "0.3", "--dim", batch],
                                 capture_output=True, text=True, timeout=120)
            self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
            self.assertIn("(7 nodes)", out.stdout)
            self.assertIn("outputs agree: yes", out.stdout)
            rows = {line.split()[0]: line.split() for line in out.stdout.splitlines()
                    if line.split() and line.split()[0] in ("geon", "onnxruntime")}
            for runtime in ("geon", "onnxruntime"):
                runs, p50, p99, per_node = rows[runtime][1:5]
                self.assertGreater(int(runs), 0)
                self.assertGreater(float(p50), 0)
                self.assertGreaterEqual(float(p99), float(p50))
                # Both printed rounded: the p50 to 0.01 us (0.71 ns a node), the ns to 1.
                self.assertAlmostEqual(float(per_node), 1e3 * float(p50) / 7, delta=1.3)

    def test_a_missing_library_is_refused_with_the_usage(self):
        out = subprocess.run([BINARY, os.path.join(_paths.REPO, "models", "mlp.onnx")],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 2)
        self.assertIn("usage: geon_capi_compare", out.stderr)


if __name__ == "__main__":
    unittest.main()
