"""Runs an onnxruntime script with `onnxruntime` aliased to geon, the script's text unchanged:
python _as_geon.py script.py [args...]. The alias is the one line a user would write
(sys.modules["onnxruntime"] = geon); submodule imports such as
onnxruntime.capi.onnxruntime_pybind11_state resolve through geon's own package."""

import runpy
import sys

import geon

sys.modules["onnxruntime"] = geon
script = sys.argv[1]
sys.argv = sys.argv[1:]
runpy.run_path(script, run_name="__main__")
