"""Where a model's tail latency comes from: runs one runtime's session back to back for some
seconds, recording each run's latency with what each of the process's threads did during it
(CPU time, voluntary and involuntary context switches, from /proc/self/task) and each CPU's
steal time (/proc/stat). Prints p50/p99, the stretches of consecutive slow runs (over --slow
times the p50) and, for the slowest runs, that per-thread record.

It tells apart the usual causes of a p99 far above the p50 with a pool of threads: a worker
that slept or was preempted (little CPU time, context switches), the hypervisor taking a
virtual CPU (steal), or every thread on a CPU the whole run and still slower (the machine's
throughput dropped under the program: both threads show the run's full length in CPU time).

  GEON_PROVIDER=build/provider/libgeon_provider.so PYTHONPATH=python \
      python3 bench/tail_series.py MODEL --threads 2 --seconds 40 [--runtime onnxruntime]

Linux only (/proc). The /proc reads between runs (outside the timed span) leave gaps of about
0.1-0.2 ms in which a pool's threads may go to sleep, so it is for runs of a millisecond and
more, and bench/compare.py gives the latency figures.
"""

import argparse
import glob
import os
import sys
import time

import numpy as np
import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# The sessions as compare.py opens them, the inputs as ort_compare.py makes them.
from compare import open_geon, open_onnxruntime  # noqa: E402
from ort_compare import random_feeds  # noqa: E402

TICK_MS = 1000.0 / os.sysconf("SC_CLK_TCK")


def thread_record():
    """Per thread id: (user ticks, system ticks, voluntary switches, involuntary switches, last CPU)."""
    out = {}
    for task in glob.glob("/proc/self/task/*"):
        try:
            with open(task + "/stat") as f:
                stat = f.read().rsplit(")", 1)[1].split()
            with open(task + "/status") as f:
                status = dict(line.split(":", 1) for line in f if ":" in line)
        except OSError:
            continue  # the thread ended meanwhile
        out[task.rsplit("/", 1)[1]] = (int(stat[11]), int(stat[12]), int(status["voluntary_ctxt_switches"]),
                                       int(status["nonvoluntary_ctxt_switches"]), int(stat[36]))
    return out


def steal_ticks():
    with open("/proc/stat") as f:
        return [int(line.split()[8]) for line in f if line.startswith("cpu") and line[3].isdigit()]


def slow_stretches(ms, factor):
    """The maximal stretches [first, last] of consecutive runs over factor times the median."""
    limit = factor * float(np.median(ms))
    stretches = []
    for k, m in enumerate(ms):
        if m <= limit:
            continue
        if stretches and stretches[-1][1] == k - 1:
            stretches[-1][1] = k
        else:
            stretches.append([k, k])
    return stretches


def record_runs(run, seconds):
    """(ms, {thread id: (user ticks, system ticks, voluntary, involuntary switches, last CPU)},
    [steal ticks per CPU]) for each call of run() until `seconds` have passed; threads idle in a
    run are left out."""
    runs = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        t0, s0 = thread_record(), steal_ticks()
        start = time.perf_counter()
        run()
        ms = (time.perf_counter() - start) * 1e3
        t1, s1 = thread_record(), steal_ticks()
        busy = {k: tuple(b - a for a, b in zip(t0[k][:4], v[:4])) + (v[4],) for k, v in t1.items() if k in t0}
        runs.append((ms, {k: v for k, v in busy.items() if any(v[:4])}, [b - a for a, b in zip(s0, s1)]))
    return runs


def report(name, runs, slow_factor, show):
    ms = np.array([r[0] for r in runs])
    p50, p99 = np.percentile(ms, [50, 99])
    print("%s: %d runs, p50 %.3f ms, p99 %.3f ms (%.2fx)" % (name, len(ms), p50, p99, p99 / p50))
    stretches = slow_stretches(ms, slow_factor)
    slow = [k for a, b in stretches for k in range(a, b + 1)]
    print("slow runs (> %.1fx p50): %d, in %d stretches; longest %d runs"
          % (slow_factor, len(slow), len(stretches), max((b - a + 1 for a, b in stretches), default=0)))
    for a, b in sorted(stretches, key=lambda r: r[0] - r[1])[:show]:  # the longest first
        print("  runs %d-%d: %.3f-%.3f ms" % (a, b, ms[a:b + 1].min(), ms[a:b + 1].max()))
    print("slowest runs: ms; per thread (user ms, system ms, voluntary, involuntary switches, last CPU); steal ms per CPU")
    for k in sorted(slow, key=lambda k: -ms[k])[:show]:
        threads = ", ".join("%s: %.0f/%.0f/%d/%d/cpu%d" % (t, v[0] * TICK_MS, v[1] * TICK_MS, v[2], v[3], v[4]) for t, v in sorted(runs[k][1].items()))
        print("  %5d %8.3f  %s; steal %s" % (k, ms[k], threads, "/".join("%.0f" % (s * TICK_MS) for s in runs[k][2])))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--runtime", choices=["geon", "onnxruntime"], default="geon")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--slow", type=float, default=1.4, help="a run over this many p50s is slow")
    ap.add_argument("--show", type=int, default=12, help="stretches and slow runs to print")
    args = ap.parse_args()

    _, run = (open_geon if args.runtime == "geon" else open_onnxruntime)(args.model, args.threads)
    feeds = random_feeds(onnx.load(args.model), {}, 0)
    for _ in range(3):
        run(feeds)
    runs = record_runs(lambda: run(feeds), args.seconds)
    report("%s, %s, %d threads" % (os.path.basename(args.model), args.runtime, args.threads), runs, args.slow, args.show)


if __name__ == "__main__":
    main()
