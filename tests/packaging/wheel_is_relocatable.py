#!/usr/bin/env python3
"""Builds the wheel (pip wheel ., CPU only), makes it relocatable with auditwheel repair,
installs it into a fresh venv, and from a directory outside every geon tree, with no
GEON_PROVIDER, runs models/mlp.onnx through it and compares with onnxruntime; then checks that
the installed library resolves oneDNN, protobuf and ONNX inside the wheel, not from /usr.

Usage: wheel_is_relocatable.py GEON_SOURCE_DIR WORK_DIR
WORK_DIR/build is kept between runs, so that a rerun rebuilds only what changed.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnxruntime as ort

import packaging_env

# Libraries outside the manylinux policy that the provider needs: each must be bundled.
BUNDLED = ("libdnnl", "libprotobuf", "libonnx")

RUN_MLP = r"""
import json, sys
import numpy as np
import geon
x = np.asarray(json.loads(sys.argv[1]), dtype=np.float32)
sess = geon.InferenceSession(sys.argv[2])
(y,) = sess.run(None, {"x": x})
# The shared libraries this process has loaded, as the kernel maps them.
maps = sorted({l.split()[-1] for l in open("/proc/self/maps") if ".so" in l.split()[-1]})
print(json.dumps({"geon": geon.__file__, "maps": maps, "y": y.tolist()}))
"""


def step(what, args, **kw):
    start = time.monotonic()
    subprocess.run(args, check=True, **kw)
    print("%s: %.0f s" % (what, time.monotonic() - start), flush=True)


def main():
    source, work = (os.path.realpath(a) for a in sys.argv[1:3])
    env = packaging_env.clean_env()
    dist, wheelhouse, venv = (os.path.join(work, d) for d in ("dist", "wheelhouse", "venv"))
    for d in (dist, wheelhouse, venv):
        shutil.rmtree(d, ignore_errors=True)

    # 1. The wheel, as `pip wheel .` builds it, without CUDA and at -O1 to keep the build short
    #    (a third less compile time: what is checked here is how the wheel is packed and where
    #    its library finds its dependencies, which the optimisation level does not change).
    step("pip wheel", [sys.executable, "-m", "pip", "wheel", source, "-w", dist, "--no-deps",
                       "--no-build-isolation", "--disable-pip-version-check",
                       "-C", "build-dir=" + os.path.join(work, "build"),
                       "-C", "cmake.define.GEON_CUDA=OFF",
                       "-C", "cmake.define.CMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG"], env=env)
    (wheel,) = glob.glob(os.path.join(dist, "geon-*.whl"))

    # 2. auditwheel grafts every library outside the manylinux policy into the wheel.
    step("auditwheel repair", [sys.executable, "-m", "auditwheel", "repair", wheel, "-w", wheelhouse],
         env=env)
    (repaired,) = glob.glob(os.path.join(wheelhouse, "geon-*.whl"))
    print("repaired wheel:", os.path.basename(repaired))
    assert "manylinux" in os.path.basename(repaired), repaired

    # 3. A fresh venv with the repaired wheel (numpy from the package index).
    step("venv", [sys.executable, "-m", "venv", venv], env=env)
    python = os.path.join(venv, "bin", "python")
    step("pip install", [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", repaired],
         env=env)

    # 4. Run the MLP from a directory that holds nothing of geon, and compare with onnxruntime.
    model = os.path.join(source, "models", "mlp.onnx")
    x = np.random.default_rng(7).standard_normal((3, 64)).astype(np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([python, "-c", RUN_MLP, json.dumps(x.tolist()), model], cwd=tmp,
                             env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    got = json.loads(out.stdout.splitlines()[-1])
    assert got["geon"].startswith(venv + os.sep), got["geon"]
    (library,) = [m for m in got["maps"] if os.path.basename(m) == "libgeon_provider.so"]
    assert library == os.path.join(os.path.dirname(got["geon"]), "lib", "libgeon_provider.so"), library
    for lib in BUNDLED:
        loaded = [m for m in got["maps"] if os.path.basename(m).startswith(lib)]
        assert loaded and all(m.startswith(venv + os.sep) for m in loaded), (lib, loaded)
    want = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    y = np.asarray(got["y"], np.float32)
    err = float(np.max(np.abs(y - want)))
    assert y.shape == want.shape and err <= 1e-4 * max(1.0, float(np.max(np.abs(want)))), err
    print("the installed wheel runs mlp.onnx as onnxruntime does (max difference %.3g)" % err)

    # 5. Its library resolves the bundled ones inside the venv (the wheel), not from /usr.
    ldd = subprocess.run(["ldd", library], check=True, capture_output=True, text=True, env=env).stdout
    print(ldd)
    for lib in BUNDLED:
        lines = [l for l in ldd.splitlines() if l.strip().startswith(lib)]
        assert lines, "%s: no %s in ldd's list" % (library, lib)
        for l in lines:
            resolved = l.split("=>")[1].split("(")[0].strip()
            assert resolved.startswith(venv + os.sep), "%s resolves to %s, outside the wheel" % (lib, resolved)
    print("oneDNN, protobuf and ONNX load from inside the wheel")


if __name__ == "__main__":
    main()
