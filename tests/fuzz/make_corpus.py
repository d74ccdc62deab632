#!/usr/bin/env python3
"""Seed corpora for the fuzz targets, generated into the build tree (never committed).

geon_fuzz_model_bytes and geon_fuzz_model_structure: the ONNX backend test models (the onnx
wheel's node, simple, pytorch-converted and pytorch-operator data) and the committed models, up
to --max-bytes each. geon_fuzz_run_inputs: per model of its list, two inputs: the model's index
(two bytes, big-endian) followed by zeros, and by seeded pseudo-random bytes.
Existing files are kept (a corpus grows over campaigns); the seeds are rewritten.
"""
import argparse
import hashlib
import os
import random
import sys


def wheel_data():
    try:
        import onnx
    except ImportError:
        return None
    return os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")


def model_seeds(source, max_bytes):
    paths = []
    for sub in ("models", "examples/models", "tests/provider/models"):
        d = os.path.join(source, sub)
        if os.path.isdir(d):
            paths += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".onnx")]
    data = wheel_data()
    if data:
        for kind in ("node", "simple", "pytorch-converted", "pytorch-operator"):
            d = os.path.join(data, kind)
            if not os.path.isdir(d):
                continue
            for case in sorted(os.listdir(d)):
                p = os.path.join(d, case, "model.onnx")
                if os.path.isfile(p):
                    paths.append(p)
    return [p for p in paths if os.path.getsize(p) <= max_bytes]


def write(directory, name, payload):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(payload)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True, help="corpus root: one folder per target")
    ap.add_argument("--source", required=True, help="the geon source tree")
    ap.add_argument("--model-list", required=True, help="geon_fuzz_run_inputs' model list")
    ap.add_argument("--max-bytes", type=int, default=128 * 1024)
    args = ap.parse_args()

    seeds = model_seeds(args.source, args.max_bytes)
    for target in ("geon_fuzz_model_bytes", "geon_fuzz_model_structure"):
        for p in seeds:
            with open(p, "rb") as f:
                payload = f.read()
            write(os.path.join(args.out, target), "seed-" + hashlib.sha1(payload).hexdigest(),
                  payload)
    with open(args.model_list) as f:
        models = [line.strip() for line in f if line.strip()]
    rng = random.Random(13)
    out = os.path.join(args.out, "geon_fuzz_run_inputs")
    for i in range(len(models)):
        head = bytes([(i >> 8) & 0xFF, i & 0xFF])
        write(out, "seed-%05d-zeros" % i, head + bytes(32))
        write(out, "seed-%05d-random" % i, head + bytes(rng.getrandbits(8) for _ in range(256)))
    print("seed corpora: %d models for the model targets, %d for run_inputs, in %s"
          % (len(seeds), len(models), args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
