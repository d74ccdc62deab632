"""bench/interruptions.py, the p99 that the machine's gaps alone make of a run's: on made-up
recordings whose effect on a run can be worked out by hand (no gaps, a periodic gap, a pool
thread stopped before or in its part), gap_p99 and job_length give that effect; a short live
recording has the shape the benchmark reads."""

import os
import sys
import unittest

import _paths

sys.path.insert(0, os.path.join(_paths.REPO, "bench"))
import interruptions  # noqa: E402

US = 1000  # ns


def periodic(period, length, seconds):
    """A gap of `length` ns at the end of every `period` ns."""
    return [(start - length, length) for start in range(period, int(seconds * 1e9), period)]


class Floor(unittest.TestCase):
    def test_without_gaps_every_run_takes_its_work(self):
        trace = {"seconds": 1.0, "cpus": [0, 1], "gaps": [[], []]}
        self.assertAlmostEqual(interruptions.gap_p99(trace, 20e-6, 2, samples=500), 20e-6)

    def test_a_run_that_meets_a_gap_in_over_one_percent_of_starts_has_it_in_its_p99(self):
        # One CPU, a 30-us gap every 1 ms: a 20-us run starting while the CPU runs meets one in
        # 20 of every 970 us (2%), so its p99 is 20 + 30 us; a 5-us run in 0.5%, so 5 us.
        trace = {"seconds": 1.0, "cpus": [0], "gaps": [periodic(1000 * US, 30 * US, 1.0)]}
        self.assertAlmostEqual(interruptions.gap_p99(trace, 20e-6, 1), 50e-6, delta=1e-7)
        self.assertAlmostEqual(interruptions.gap_p99(trace, 5e-6, 1), 5e-6, delta=1e-7)

    def test_a_pool_thread_stopped_before_its_part_leaves_it_to_the_caller(self):
        trace = {"seconds": 1.0, "cpus": [0, 1], "gaps": [[], [(0, 10 ** 9)]]}
        self.assertAlmostEqual(interruptions.gap_p99(trace, 20e-6, 2, samples=500), 40e-6)

    def test_a_pool_thread_stopped_in_its_part_holds_it(self):
        w = 100 * US
        cpus = [([], []), ([w // 2], [w // 2 + 10 * w])]  # the worker stops halfway for 10 w
        self.assertEqual(interruptions.job_length(cpus, 0, w, 2), 11 * w)
        self.assertEqual(interruptions.job_length(cpus, 0, w, 1), w)  # one part: the caller's

    def test_a_run_longer_than_the_recording_is_refused(self):
        trace = {"seconds": 0.001, "cpus": [0], "gaps": [[]]}
        with self.assertRaises(ValueError):
            interruptions.gap_p99(trace, 0.01, 1)


class Recording(unittest.TestCase):
    def test_a_short_recording_lists_each_cpus_gaps_in_order(self):
        trace = interruptions.record(2, 0.2)
        self.assertEqual(len(trace["gaps"]), len(trace["cpus"]))
        for gaps in trace["gaps"]:
            starts = [s for s, _ in gaps]
            self.assertEqual(starts, sorted(starts))
            self.assertTrue(all(length > 3 * US and 0 <= s < 0.2e9 for s, length in gaps))
        summary = interruptions.summary(trace)
        self.assertGreaterEqual(summary["cpu_share"], 0.0)
        self.assertLess(summary["cpu_share"], 1.0)


if __name__ == "__main__":
    unittest.main()
