"""bench/tail_series.py, the tail-latency diagnostic: its stretches of slow runs are the maximal
runs of consecutive latencies over the limit (checked against a per-index definition on random
series), and a short recording through geon names the threads that worked in each run."""

import io
import os
import sys
import unittest
from contextlib import redirect_stdout

import numpy as np
import onnx

import _paths

sys.path.insert(0, os.path.join(_paths.REPO, "bench"))
import tail_series  # noqa: E402


class SlowStretches(unittest.TestCase):
    def test_stretches_are_the_maximal_runs_of_slow_latencies(self):
        rng = np.random.default_rng(3)
        for _ in range(200):
            ms = rng.choice([1.0, 1.1, 3.0], size=rng.integers(1, 40), p=[0.5, 0.2, 0.3])
            limit = 1.4 * np.median(ms)
            stretches = tail_series.slow_stretches(ms, 1.4)
            covered = [k for a, b in stretches for k in range(a, b + 1)]
            self.assertEqual(covered, [k for k in range(len(ms)) if ms[k] > limit])
            for a, b in stretches:  # maximal: the neighbours of a stretch are not slow
                self.assertTrue(a == 0 or ms[a - 1] <= limit)
                self.assertTrue(b == len(ms) - 1 or ms[b + 1] <= limit)
            for (_, b), (a, _) in zip(stretches, stretches[1:]):
                self.assertGreater(a, b + 1)

    def test_a_run_of_equal_latencies_has_no_slow_stretch(self):
        self.assertEqual(tail_series.slow_stretches(np.full(10, 2.0), 1.4), [])


class Recording(unittest.TestCase):
    def test_each_run_records_its_latency_and_the_threads_that_worked(self):
        path = os.path.join(_paths.REPO, "models", "mlp.onnx")
        _, run = tail_series.open_geon(path, 2)
        feeds = tail_series.random_feeds(onnx.load(path), {}, 0)
        self.assertEqual(feeds["x"].dtype, np.float32)
        spin = lambda: [run(feeds) for _ in range(200)]  # long enough to be ticked
        runs = tail_series.record_runs(spin, 0.3)
        self.assertGreater(len(runs), 0)
        me = str(os.getpid())  # the main thread's id is the process id
        for ms, threads, steal in runs:
            self.assertGreater(ms, 0.0)
            self.assertEqual(len(steal), os.cpu_count())
            for tid, (user, system, vol, invol, cpu) in threads.items():
                self.assertTrue(min(user, system, vol, invol) >= 0 and 0 <= cpu < os.cpu_count())
        self.assertTrue(any(me in threads for _, threads, _ in runs))
        out = io.StringIO()
        with redirect_stdout(out):
            tail_series.report("mlp", runs, 1.4, 3)
        self.assertIn("mlp: %d runs" % len(runs), out.getvalue())


if __name__ == "__main__":
    unittest.main()
