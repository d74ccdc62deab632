#!/usr/bin/env python3
"""Create / run / release cycles of every model of the exported model suite (tests/models) that
the main build's cache holds, each in its own geon_cycles process so that LeakSanitizer checks
each model on its own. The suite's .npz inputs are written as feeds files (feeds.h) first.

    model_suite_cycles.py GEON_CYCLES CACHE_DIR[:CACHE_DIR...] CYCLES [MODEL ...]

The first cache directory that holds an exported model is used.

Exits 77 (ctest's skip) when the cache holds no exported model: the main build exports them
on its first run of models.suite_matches_onnxruntime (torch is needed for that).
"""
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

SKIP = 77


def write_feeds(npz_path, feeds_path):
    with np.load(npz_path) as data, open(feeds_path, "wb") as out:
        for name in data.files:
            array = np.ascontiguousarray(data[name])
            dtype = {np.dtype(np.float32): 1, np.dtype(np.int64): 7, np.dtype(np.int32): 6,
                     np.dtype(np.float64): 11, np.dtype(np.bool_): 9}[array.dtype]
            dims = " ".join(str(d) for d in array.shape)
            header = f"{name} {dtype} {array.ndim} {dims} {array.nbytes}".replace("  ", " ")
            out.write(header.encode() + b"\n" + array.tobytes())


def main():
    cycles_binary, caches, cycles = sys.argv[1], sys.argv[2], sys.argv[3]
    wanted = sys.argv[4:]
    models = []
    for cache in filter(None, caches.split(":")):
        if os.path.isdir(cache):
            models = sorted(f[:-5] for f in os.listdir(cache) if f.endswith(".onnx")
                            and os.path.exists(os.path.join(cache, f[:-5] + ".npz")))
        if models:
            break
    if wanted:
        models = [m for m in models if m in wanted]
    if not models:
        print(f"skipped: no exported model with inputs in '{caches}' (the main build's "
              "models.suite_matches_onnxruntime exports them; it needs torch)")
        return SKIP
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in models:
            feeds = os.path.join(tmp, model + ".feeds")
            write_feeds(os.path.join(cache, model + ".npz"), feeds)
            start = time.monotonic()
            done = subprocess.run([cycles_binary, cycles,
                                   os.path.join(cache, model + ".onnx") + "=" + feeds],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            print(f"--- {model}: exit {done.returncode}, {time.monotonic() - start:.1f} s")
            print(done.stdout, end="", flush=True)
            if done.returncode != 0:
                failed.append(model)
    print(f"{len(models) - len(failed)} of {len(models)} models: {cycles} cycles clean"
          + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
