"""geon._fastrun, run()'s C path for feeds shaped as the last plain run: what it gives equals
numpy's reference and the ctypes path's, it is the path taken when the build made it, and
every feed it does not take (other shapes, dtypes, layouts, containers, a failing run) goes the
general way with the general way's results and errors."""

import os
import subprocess
import sys
import threading
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper

import _paths
import geon
from geon import _run_path

RTOL, ATOL = 1e-5, 1e-6


def _model():
    """y = a * 2 + b (float, a's batch symbolic), n = idx + 1 (int64), g = Gather(table, idx):
    two inputs of different dtypes, three outputs, and a run that fails on an index out of
    range."""
    two = helper.make_tensor("two", TensorProto.FLOAT, [], [2.0])
    one = helper.make_tensor("one", TensorProto.INT64, [], [1])
    table = helper.make_tensor("table", TensorProto.FLOAT, [4], [10.0, 11.0, 12.0, 13.0])
    nodes = [
        helper.make_node("Mul", ["a", "two"], ["a2"]),
        helper.make_node("Add", ["a2", "b"], ["y"]),
        helper.make_node("Add", ["idx", "one"], ["n"]),
        helper.make_node("Gather", ["table", "idx"], ["g"]),
    ]
    graph = helper.make_graph(
        nodes,
        "fastrun",
        [
            helper.make_tensor_value_info("a", TensorProto.FLOAT, ["batch", 3]),
            helper.make_tensor_value_info("b", TensorProto.FLOAT, [1, 3]),
            helper.make_tensor_value_info("idx", TensorProto.INT64, [2]),
        ],
        [
            helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3]),
            helper.make_tensor_value_info("n", TensorProto.INT64, [2]),
            helper.make_tensor_value_info("g", TensorProto.FLOAT, [2]),
        ],
        [two, one, table],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def _feed(batch=2, seed=0):
    rng = np.random.default_rng(seed)
    return {
        "a": rng.standard_normal((batch, 3)).astype(np.float32),
        "b": rng.standard_normal((1, 3)).astype(np.float32),
        "idx": np.array([3, 0], np.int64),
    }


def _want(feed):
    table = np.array([10.0, 11.0, 12.0, 13.0], np.float32)
    return [feed["a"] * 2 + feed["b"], feed["idx"] + 1, table[feed["idx"]]]


class _Counting:
    """Wraps geon._fastrun, counting the runs that it answered with outputs."""

    def __init__(self, module):
        self.module = module
        self.answered = 0

    def run(self, *args):
        result = self.module.run(*args)
        if isinstance(result, list):
            self.answered += 1
        return result


def _built():
    library = os.environ.get("GEON_PROVIDER", "")
    folder = os.path.dirname(os.path.abspath(library)) if library else ""
    return folder and any(name.startswith("_fastrun.") for name in os.listdir(folder))


class FastRunTest(unittest.TestCase):
    def setUp(self):
        if _run_path._fastrun() is None:
            self.skipTest("geon._fastrun is not built beside GEON_PROVIDER's library (sanitizer "
                          "builds and the wheel leave it out): the ctypes path serves alone")
        self.session = geon.InferenceSession(_model().SerializeToString())
        self.counting = _Counting(self.session._run_path._fast)
        self.session._run_path._fast = self.counting

    def check(self, got, want):
        self.assertEqual(len(got), len(want))
        for g, w in zip(got, want):
            self.assertEqual(g.dtype, w.dtype)
            np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)

    def test_repeated_runs_take_the_c_path_and_match_numpy(self):
        for seed in range(5):
            feed = _feed(seed=seed)
            self.check(self.session.run(None, feed), _want(feed))
        # The first run makes the plan; the next four are answered in C.
        self.assertEqual(self.counting.answered, 4)

    def test_outputs_are_fresh_arrays_and_inputs_are_untouched(self):
        feed = _feed()
        before = {k: v.copy() for k, v in feed.items()}
        first = self.session.run(None, feed)
        second = self.session.run(None, feed)
        self.assertEqual(self.counting.answered, 1)
        for a, b in zip(first, second):
            self.assertFalse(np.shares_memory(a, b))
            second_copy = b.copy()
            a[...] = 0
            np.testing.assert_array_equal(b, second_copy)
        for k in feed:
            np.testing.assert_array_equal(feed[k], before[k])

    def test_output_subset_has_its_own_plan(self):
        feed = _feed()
        for _ in range(3):
            got = self.session.run(["g", "y"], feed)
            want = _want(feed)
            self.check(got, [want[2], want[0]])
        self.assertEqual(self.counting.answered, 2)
        self.check(self.session.run(None, feed), _want(feed))  # another plan: ctypes first
        self.assertEqual(self.counting.answered, 2)
        self.check(self.session.run(None, feed), _want(feed))
        self.assertEqual(self.counting.answered, 3)

    def test_read_only_inputs_are_taken(self):
        feed = _feed()
        self.session.run(None, feed)
        for value in feed.values():
            value.setflags(write=False)
        self.check(self.session.run(None, feed), _want(feed))
        self.assertEqual(self.counting.answered, 1)

    def test_feeds_the_plan_does_not_describe_go_the_general_way(self):
        feed = _feed(batch=2)
        self.session.run(None, feed)
        wider = np.random.default_rng(1).standard_normal((2, 6)).astype(np.float32)
        others = {
            "another batch": _feed(batch=5, seed=1),
            "a non-contiguous view": dict(feed, a=wider[:, ::2]),
            "a list": dict(feed, a=feed["a"].tolist()),
            "another key order": {"idx": feed["idx"], "b": feed["b"], "a": feed["a"]},
            "a misaligned array": dict(feed, a=np.frombuffer(
                b"\0" + feed["a"].tobytes(), np.float32, 6, 1).reshape(2, 3)),
        }
        for what, other in others.items():
            with self.subTest(what):
                answered = self.counting.answered
                got = self.session.run(None, other)
                plain = {k: np.asarray(v, np.float32 if k != "idx" else np.int64) for k, v in other.items()}
                self.check(got, _want(plain))
                self.assertEqual(self.counting.answered, answered, "taken by the C path")

    def test_errors_are_the_general_paths(self):
        feed = _feed()
        self.session.run(None, feed)
        bad = {
            "float64 a": dict(feed, a=feed["a"].astype(np.float64)),
            "a missing input": {"a": feed["a"], "b": feed["b"]},
            "an extra input": dict(feed, extra=feed["b"]),
        }
        for what, other in bad.items():
            with self.subTest(what):
                with self.assertRaises(Exception) as fast:
                    self.session.run(None, other)
                plain = geon.InferenceSession(_model().SerializeToString())
                plain.run(None, feed)
                plain._run_path._fast_last = None
                plain._run_path._fast = None
                with self.assertRaises(Exception) as slow:
                    plain.run(None, other)
                self.assertEqual(type(fast.exception), type(slow.exception))
                self.assertEqual(str(fast.exception), str(slow.exception))

    def test_a_failing_run_reports_its_error_and_the_next_run_succeeds(self):
        feed = _feed()
        self.session.run(None, feed)
        self.session.run(None, feed)
        self.assertEqual(self.counting.answered, 1)
        with self.assertRaisesRegex(Exception, "Gather"):
            self.session.run(None, dict(feed, idx=np.array([7, 0], np.int64)))
        self.check(self.session.run(None, feed), _want(feed))

    def test_threads_share_a_session(self):
        errors = []

        def work(seed):
            try:
                for i in range(200):
                    feed = _feed(seed=seed * 1000 + i)
                    self.check(self.session.run(None, feed), _want(feed))
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertGreater(self.counting.answered, 0)

    def test_no_references_leak(self):
        feed = _feed()
        self.session.run(None, feed)
        counts = [sys.getrefcount(v) for v in feed.values()]
        dtype_counts = [sys.getrefcount(v.dtype) for v in feed.values()]
        for _ in range(2000):
            self.session.run(None, feed)
        self.assertEqual([sys.getrefcount(v) for v in feed.values()], counts)
        self.assertEqual([sys.getrefcount(v.dtype) for v in feed.values()], dtype_counts)


class SwitchTest(unittest.TestCase):
    def test_disabled_by_the_environment(self):
        if not _built():
            self.skipTest("geon._fastrun is not built beside GEON_PROVIDER's library")
        code = ("import geon, numpy as np; from geon import _run_path; "
                "print(_run_path._fastrun() is None)")
        env = dict(os.environ, GEON_PYTHON_FASTRUN="0",
                   PYTHONPATH=os.path.join(_paths.REPO, "python"))
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                             check=True)
        self.assertEqual(out.stdout.strip(), "True")

    def test_found_when_built(self):
        if not _built():
            self.skipTest("geon._fastrun is not built beside GEON_PROVIDER's library")
        if os.environ.get("GEON_PYTHON_FASTRUN") == "0":
            self.skipTest("GEON_PYTHON_FASTRUN=0 switches it off")
        self.assertIsNotNone(_run_path._fastrun())


if __name__ == "__main__":
    unittest.main()
