"""geon.capi mirrors onnxruntime.capi, so that `from onnxruntime.capi.onnxruntime_pybind11_state
import InvalidArgument` works when onnxruntime is aliased to geon. Imports are absolute (geon.*):
loaded under another package name, these modules still hand out geon's own classes.
"""

from geon.capi import onnxruntime_pybind11_state  # noqa: F401
