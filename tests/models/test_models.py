"""The model suite (models/export/export_models.py) through geon, each model's outputs checked
against ONNX Runtime's on the same inputs: every output within 1e-3 of its largest absolute value.

Two interpreters, kept apart: the models are exported by Debian's python3 with torch
($GEON_TORCH_PYTHON, default /usr/bin/python3) in one subprocess, on first use, into
$GEON_MODEL_CACHE (default build/models), and reused while the export scripts are unchanged;
the check runs here, on the python3 that has onnxruntime and geon. A model that does not export
or that geon cannot run fails with the reason (the export's traceback, geon's error).
GEON_MODELS=name,name... limits the run to those models.
"""

import ast
import hashlib
import os
import re
import subprocess
import sys
import time
import unittest

import numpy as np
import onnxruntime

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "python"))
import _paths  # noqa: E402,F401
import geon  # noqa: E402

EXPORT_DIR = os.path.join(REPO, "models", "export")
EXPORT_SCRIPT = os.path.join(EXPORT_DIR, "export_models.py")
CACHE = os.environ.get("GEON_MODEL_CACHE", os.path.join(REPO, "build", "models"))
TORCH_PYTHON = os.environ.get("GEON_TORCH_PYTHON", "/usr/bin/python3")
THREADS = int(os.environ.get("GEON_MODEL_THREADS", "2"))
RELATIVE_TOLERANCE = 1e-3

# The models of export_models.py, in its order.
MODELS = [
    "alexnet_small", "vgg_small", "resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small",
    "efficientnet_b0", "densenet121", "squeezenet1_1", "shufflenet_v2", "lraspp_mobilenet_v3", "r3d_18",
    "lstm_tagger", "bert_base", "gpt_decoder", "vit_small", "swin_t",
]
SELECTED = [m for m in os.environ.get("GEON_MODELS", "").split(",") if m] or MODELS

# name -> why it has no exported model (filled by setUpModule)
EXPORT_ERRORS = {}


def _scripts_digest():
    digest = hashlib.sha256()
    for name in sorted(os.listdir(EXPORT_DIR)):
        if name.endswith(".py"):
            with open(os.path.join(EXPORT_DIR, name), "rb") as f:
                digest.update(name.encode() + b"\0" + f.read())
    return digest.hexdigest()


def _cached(name, digest):
    stamp = os.path.join(CACHE, name + ".stamp")
    if not all(os.path.exists(os.path.join(CACHE, name + ext)) for ext in (".onnx", ".npz", ".stamp")):
        return False
    with open(stamp) as f:
        return f.read().strip() == digest


def setUpModule():
    """Exports, in one torch process, every selected model missing from the cache or exported
    by other versions of the scripts."""
    digest = _scripts_digest()
    missing = [m for m in SELECTED if not _cached(m, digest)]
    if not missing:
        return
    os.makedirs(CACHE, exist_ok=True)
    # A stale model left in place would count as exported should this export die half way.
    for m in missing:
        for ext in (".onnx", ".npz", ".stamp"):
            if os.path.exists(os.path.join(CACHE, m + ext)):
                os.remove(os.path.join(CACHE, m + ext))
    start = time.time()
    try:
        # torch's interpreter gets no sanitizer runtime that a sanitizer build preloads here.
        env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS")}
        done = subprocess.run([TORCH_PYTHON, EXPORT_SCRIPT, "--out", CACHE] + missing,
                              capture_output=True, text=True, timeout=1800, env=env)
    except (OSError, subprocess.TimeoutExpired) as e:
        for m in missing:
            EXPORT_ERRORS[m] = "cannot run the export (%s): %s" % (TORCH_PYTHON, e)
        return
    sys.stderr.write(done.stdout)
    sys.stderr.write("export: %d model(s) in %.0f s\n" % (len(missing), time.time() - start))
    # The script reports each failed model as "export of NAME failed:" followed by its traceback.
    pattern = r"export of (\w+) failed:\n(.*?)(?=\nexport of \w+ failed:|\Z)"
    failures = dict(re.findall(pattern, done.stderr, re.S))
    for m in missing:
        if m not in failures and os.path.exists(os.path.join(CACHE, m + ".onnx")):
            with open(os.path.join(CACHE, m + ".stamp"), "w") as f:
                f.write(digest + "\n")
        else:
            reason = failures.get(m) or done.stderr[-3000:] or "no output (exit %d)" % done.returncode
            if "No module named 'torch" in reason:
                reason += "\n(scripts/setup.sh --with-torch installs python3-torch and python3-torchvision)"
            EXPORT_ERRORS[m] = "export with %s failed:\n%s" % (TORCH_PYTHON, reason.strip())


def _ort_session(path):
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = THREADS
    return onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def _geon_session(path):
    options = geon.SessionOptions()
    options.intra_op_num_threads = THREADS
    return geon.InferenceSession(path, sess_options=options)


def _summarized(message, lines=8):
    """geon's error names every node no kernel set can run; a whole CNN makes that dozens of
    lines. Keeps the first few and names the ops of all of them."""
    parts = message.split("\n")
    ops = sorted(set(re.findall(r"^  node '.*?' \((\w+)\):", message, re.M)))
    kept = parts[: lines + 1]
    if len(parts) > lines + 1:
        kept.append("  ... %d more line(s)" % (len(parts) - lines - 1))
    if ops:
        kept.append("ops without a kernel here: " + ", ".join(ops))
    return "\n".join(kept)


def _timed(function):
    start = time.perf_counter()
    result = function()
    return result, time.perf_counter() - start


class ModelSuite(unittest.TestCase):
    def check_model(self, name):
        if name in EXPORT_ERRORS:
            self.fail(EXPORT_ERRORS[name])
        path = os.path.join(CACHE, name + ".onnx")
        with np.load(os.path.join(CACHE, name + ".npz")) as data:
            feeds = {k: data[k] for k in data.files}
        ort = _ort_session(path)
        names = [o.name for o in ort.get_outputs()]
        expected, ort_first = _timed(lambda: ort.run(names, feeds))
        _, ort_second = _timed(lambda: ort.run(names, feeds))
        # Two geon runs: the second reuses the plan the first built for these shapes, and must
        # give the same answer.
        try:
            session, load_seconds = _timed(lambda: _geon_session(path))
            first, geon_first = _timed(lambda: session.run(names, feeds))
            second, geon_second = _timed(lambda: session.run(names, feeds))
        except geon.GeonError as e:
            raise AssertionError("geon cannot run %s: %s" % (name, _summarized(str(e)))) from None
        sys.stderr.write("%s: geon session %.2f s, runs %.3f s then %.3f s; onnxruntime runs %.3f s then "
                         "%.3f s\n" % (name, load_seconds, geon_first, geon_second, ort_first, ort_second))
        for run, actual in (("first", first), ("second", second)):
            for output, want, got in zip(names, expected, actual):
                with self.subTest(run=run, output=output):
                    what = "%s (%s geon run): output %s" % (name, run, output)
                    self.check_output(what, want, np.asarray(got))

    def check_output(self, what, want, got):
        self.assertEqual(got.shape, want.shape, what + ": shape")
        self.assertEqual(got.dtype, want.dtype, what + ": dtype")
        scale = float(np.max(np.abs(want))) if want.size else 0.0
        error = float(np.max(np.abs(got.astype(np.float64) - want))) if want.size else 0.0
        self.assertFalse(np.isnan(got).any() and not np.isnan(want).any(),
                         what + " has NaN where onnxruntime has none")
        self.assertGreater(scale, 0.0, what + " is all zeros in onnxruntime: comparing it would prove "
                           "nothing (fix the model's weights)")
        sys.stderr.write("  %s: largest difference %.3g, relative to the largest value %.3g\n"
                         % (what, error / scale, scale))
        self.assertLessEqual(error, RELATIVE_TOLERANCE * scale,
                             "%s differs from onnxruntime by %.3g, more than %g of its largest absolute "
                             "value %.3g" % (what, error, RELATIVE_TOLERANCE, scale))


class ModelList(unittest.TestCase):
    def test_lists_every_model_of_the_export_script(self):
        # Read from the script's source (its MODELS table), as importing it needs torch.
        with open(EXPORT_SCRIPT) as f:
            tree = ast.parse(f.read())
        exported = None
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "MODELS" for t in node.targets):
                lists = [n for n in ast.walk(node.value) if isinstance(n, ast.List)]
                exported = [e.id for e in lists[0].elts]
        self.assertEqual(exported, MODELS)


def _add_tests():
    for name in SELECTED:
        if name not in MODELS:
            raise SystemExit("GEON_MODELS: unknown model %r (known: %s)" % (name, ", ".join(MODELS)))
        setattr(ModelSuite, "test_" + name, lambda self, name=name: self.check_model(name))


_add_tests()

if __name__ == "__main__":
    unittest.main()
