"""geon's onnxruntime-compatible API piece by piece, against onnxruntime itself where it has
the same piece: options and their mapping onto the C ABI, providers, the exception class per
situation, model metadata, NodeArgs, OrtValue, I/O binding with caller memory written in
place, and the onnxruntime alias (geon.capi.onnxruntime_pybind11_state)."""

import ctypes
import os
import subprocess
import sys
import unittest
import warnings

import numpy as np
import onnx
import onnx.helper
import onnx.numpy_helper
import onnxruntime

import _models
import _paths
import geon
from geon import _providers, options as geon_options

FLOAT = onnx.TensorProto.FLOAT


def _pairs(options, devices=None):
    return dict(geon_options.option_pairs(options, devices))


def _ort(model):
    return onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def _metadata_model(with_version=True):
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Relu", ["x"], ["y"])],
        "meta_graph",
        [onnx.helper.make_tensor_value_info("x", FLOAT, ["n", 2])],
        [onnx.helper.make_tensor_value_info("y", FLOAT, ["n", 2])],
        doc_string="graph doc",
    )
    model = onnx.helper.make_model(
        graph,
        opset_imports=[onnx.helper.make_opsetid("", 17)],
        ir_version=_models.IR_VERSION,
        producer_name="producer",
        producer_version="9.9",
        domain="org.example",
        doc_string="model doc",
    )
    if with_version:
        model.model_version = 12
    onnx.helper.set_model_props(model, {"k1": "v1", "k2": "v2"})
    return model


def _dims_model():
    """x[batch, None, 4] and an initializer w that is also an input (overridable); y's shape is
    left to inference, z has an unknown rank."""
    w = onnx.numpy_helper.from_array(np.arange(4, dtype=np.float32), "w")
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Add", ["x", "w"], ["y"]), onnx.helper.make_node("Relu", ["u"], ["z"])],
        "dims",
        [
            onnx.helper.make_tensor_value_info("x", FLOAT, ["batch", None, 4]),
            onnx.helper.make_tensor_value_info("u", FLOAT, None),
            onnx.helper.make_tensor_value_info("w", FLOAT, [4]),
        ],
        [onnx.helper.make_tensor_value_info("y", FLOAT, ["batch", None, 4]), onnx.helper.make_tensor_value_info("z", FLOAT, None)],
        [w],
    )
    return onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)], ir_version=_models.IR_VERSION)


class SessionOptionsMapping(unittest.TestCase):
    def test_defaults_print_like_onnxruntimes(self):
        ours, theirs = geon.SessionOptions(), onnxruntime.SessionOptions()
        for name in ("intra_op_num_threads", "inter_op_num_threads", "graph_optimization_level",
                     "execution_mode", "enable_profiling", "log_severity_level", "log_verbosity_level",
                     "enable_cpu_mem_arena", "enable_mem_pattern", "use_deterministic_compute"):
            with self.subTest(option=name):
                self.assertEqual(str(getattr(ours, name)), str(getattr(theirs, name)))

    def test_enums_have_onnxruntimes_members_and_values(self):
        for ours, theirs in ((geon.GraphOptimizationLevel, onnxruntime.GraphOptimizationLevel),
                             (geon.ExecutionMode, onnxruntime.ExecutionMode)):
            self.assertEqual({k: int(v) for k, v in ours.__members__.items()},
                             {k: int(v) for k, v in theirs.__members__.items()})
            for name in theirs.__members__:
                self.assertEqual(str(ours[name]), str(theirs.__members__[name]))

    def test_optimization_levels_map_onto_geons_three(self):
        want = {"ORT_DISABLE_ALL": "0", "ORT_ENABLE_BASIC": "1", "ORT_ENABLE_EXTENDED": "2",
                "ORT_ENABLE_LAYOUT": "2", "ORT_ENABLE_ALL": "2"}
        for name, level in want.items():
            options = geon.SessionOptions()
            options.graph_optimization_level = geon.GraphOptimizationLevel[name]
            self.assertEqual(_pairs(options)["optimization_level"], level, name)

    def test_log_severity_maps_onto_geons_levels_and_minus_one_defers_to_log_level(self):
        for severity, level in ((0, "verbose"), (1, "info"), (2, "warning"), (3, "error"), (4, "error")):
            options = geon.SessionOptions()
            options.log_severity_level = severity
            self.assertEqual(_pairs(options)["log_level"], level)
        options = geon.SessionOptions()
        options.log_level = "info"
        self.assertEqual(_pairs(options)["log_level"], "info")
        options.log_severity_level = 7
        with self.assertRaises(geon.InvalidArgument):
            _pairs(options)

    def test_onnxruntime_config_entries_are_kept_not_passed(self):
        options = geon.SessionOptions()
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.add_session_config_entry("strict", "1")
        pairs = _pairs(options)
        self.assertNotIn("session.intra_op.allow_spinning", pairs)
        self.assertEqual(pairs["strict"], "1")
        self.assertEqual(options.get_session_config_entry("session.intra_op.allow_spinning"), "0")
        with self.assertRaises(RuntimeError):  # as onnxruntime
            options.get_session_config_entry("nope")
        with self.assertRaises(RuntimeError):
            onnxruntime.SessionOptions().get_session_config_entry("nope")

    def test_run_options_defaults_match(self):
        ours, theirs = geon.RunOptions(), onnxruntime.RunOptions()
        for name in ("log_severity_level", "log_verbosity_level", "logid", "terminate",
                     "only_execute_path_to_fetches"):
            self.assertEqual(getattr(ours, name), getattr(theirs, name), name)
        ours.run_tag = "tag"
        self.assertEqual(ours.logid, "tag")
        ours.add_run_config_entry("a", "b")
        self.assertEqual(ours.get_run_config_entry("a"), "b")


class Providers(unittest.TestCase):
    def test_onnxruntime_names_map_to_kernel_sets_with_cpu_last(self):
        self.assertEqual(_providers.resolve(["CPUExecutionProvider"]).devices, "cpu")
        self.assertEqual(_providers.resolve(["CUDAExecutionProvider"]).devices, "cuda,cpu")
        request = _providers.resolve([("CUDAExecutionProvider", {"device_id": 0}), "CPUExecutionProvider"])
        self.assertEqual(request.devices, "cuda,cpu")
        self.assertEqual(request.options["CUDAExecutionProvider"], {"device_id": "0"})
        self.assertEqual(_providers.resolve(None).devices, None)

    def test_geon_names_pass_through(self):
        request = _providers.resolve(["cpu.dnnl", "cpu.generic"])
        self.assertEqual((request.devices, request.style), ("cpu.dnnl,cpu.generic", "geon"))

    def test_unknown_onnxruntime_provider_warns_and_falls_back_to_cpu(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            session = geon.InferenceSession(_models.add_scalar(), providers=["TensorrtExecutionProvider"])
        self.assertTrue(any("TensorrtExecutionProvider" in str(w.message) for w in caught))
        self.assertEqual(session.get_providers(), ["CPUExecutionProvider"])

    def test_get_providers_names_what_is_used_in_the_callers_style(self):
        for providers, want in ((None, ["CPUExecutionProvider"]),
                                (["CPUExecutionProvider"], ["CPUExecutionProvider"]),
                                (["cpu.generic"], ["cpu.generic"]),
                                (["cpu"], ["cpu.dnnl", "cpu.generic"])):
            with self.subTest(providers=providers):
                session = geon.InferenceSession(_models.add_scalar(), providers=providers)
                used = session.placement_report()["devices"]["used"]
                self.assertEqual(session.get_providers(), want if providers else ["CPUExecutionProvider"])
                if providers and providers[0].startswith("cpu"):
                    self.assertEqual(session.get_providers(), used)

    def test_cuda_is_reported_only_where_the_cuda_set_is_used(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            session = geon.InferenceSession(_models.add_scalar(), providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
        used = session.placement_report()["devices"]["used"]
        cuda_used = any(s.startswith("cuda") for s in used)
        self.assertEqual("CUDAExecutionProvider" in session.get_providers(), cuda_used)
        self.assertEqual("CUDAExecutionProvider" in geon.get_available_providers(), cuda_used)
        self.assertEqual(session.get_providers()[-1], "CPUExecutionProvider")
        self.assertIn("CPUExecutionProvider", geon.get_available_providers())

    def test_provider_options_per_provider_like_onnxruntime(self):
        model = _models.add_scalar()
        for kwargs in ({"providers": ["CPUExecutionProvider"]},
                       {"providers": [("CPUExecutionProvider", {})]},
                       {"providers": ["CPUExecutionProvider"], "provider_options": [{}]}):
            with self.subTest(**kwargs):
                ours = geon.InferenceSession(model, **kwargs)
                theirs = onnxruntime.InferenceSession(model.SerializeToString(), **kwargs)
                self.assertEqual(ours.get_provider_options(), theirs.get_provider_options())
                self.assertEqual(ours.get_providers(), theirs.get_providers())

    def test_module_level_functions(self):
        self.assertEqual(geon.get_device(), onnxruntime.get_device())
        self.assertEqual(geon.get_version_string(), geon.__version__)


class ErrorClasses(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.model = _models.mlp()
        cls.ours = geon.InferenceSession(cls.model)
        cls.theirs = _ort(cls.model)
        cls.x = np.zeros((2, 16), np.float32)

    def same_class(self, call_ours, call_theirs):
        with self.assertRaises(Exception) as theirs:
            call_theirs()
        with self.assertRaises(Exception) as ours:
            call_ours()
        self.assertEqual(type(ours.exception).__name__, type(theirs.exception).__name__, str(ours.exception))
        return ours.exception

    def test_every_class_is_a_geon_error(self):
        from onnxruntime.capi import onnxruntime_pybind11_state as state

        for cls in geon._errors.CLASSES:
            self.assertTrue(issubclass(cls, geon.GeonError), cls)
            self.assertTrue(hasattr(state, cls.__name__), cls.__name__)  # onnxruntime's names
            self.assertIs(getattr(geon.capi.onnxruntime_pybind11_state, cls.__name__), cls)

    def test_geon_error_picks_the_class_of_its_code(self):
        error = geon.GeonError("bad", geon._errors.INVALID_ARGUMENT)
        self.assertIsInstance(error, geon.InvalidArgument)
        self.assertEqual((error.code, error.code_name, str(error)), (1, "INVALID_ARGUMENT", "bad"))
        self.assertIsInstance(geon.GeonError("x", geon._errors.UNSUPPORTED), geon.NotImplemented)

    def test_missing_model_file(self):
        error = self.same_class(lambda: geon.InferenceSession("/nonexistent/m.onnx"),
                                lambda: onnxruntime.InferenceSession("/nonexistent/m.onnx"))
        self.assertEqual(error.code_name, "NOT_FOUND")

    def test_unparsable_bytes(self):
        self.same_class(lambda: geon.InferenceSession(b"not a model at all"),
                        lambda: onnxruntime.InferenceSession(b"not a model at all"))

    def test_bad_feeds(self):
        for label, feed in (("dtype", {"x": self.x.astype(np.float64)}), ("rank", {"x": np.zeros(16, np.float32)}),
                            ("length", {"x": np.zeros((2, 15), np.float32)}), ("extra name", {"x": self.x, "q": self.x}),
                            ("missing", {}), ("misnamed", {"X": self.x})):
            with self.subTest(label):
                self.same_class(lambda: self.ours.run(None, feed), lambda: self.theirs.run(None, feed))

    def test_unknown_output_name(self):
        self.same_class(lambda: self.ours.run(["nope"], {"x": self.x}), lambda: self.theirs.run(["nope"], {"x": self.x}))

    def test_terminated_run(self):
        ours, theirs = geon.RunOptions(), onnxruntime.RunOptions()
        ours.terminate = theirs.terminate = True
        self.same_class(lambda: self.ours.run(None, {"x": self.x}, ours), lambda: self.theirs.run(None, {"x": self.x}, theirs))

    def test_unsupported_op_is_not_implemented(self):
        # oneDNN's set alone (devices "cpu.dnnl") has no Det.
        graph = onnx.helper.make_graph(
            [onnx.helper.make_node("Add", ["x", "x"], ["s"]), onnx.helper.make_node("Det", ["s"], ["y"])],
            "det",
            [onnx.helper.make_tensor_value_info("x", FLOAT, [3, 3])], [onnx.helper.make_tensor_value_info("y", FLOAT, [])])
        opsets = [onnx.helper.make_opsetid("", 17)]
        model = onnx.helper.make_model(graph, opset_imports=opsets, ir_version=_models.IR_VERSION)
        with self.assertRaises(geon.NotImplemented) as caught:
            geon.InferenceSession(model, providers=["cpu.dnnl"])
        self.assertEqual(caught.exception.code_name, "UNSUPPORTED")
        self.assertIn("Det", str(caught.exception))

    def test_malformed_graph_is_invalid_graph(self):
        graph = onnx.helper.make_graph(
            [onnx.helper.make_node("Einsum", ["x"], ["y"])], "g",
            [onnx.helper.make_tensor_value_info("x", FLOAT, [3, 3])], [onnx.helper.make_tensor_value_info("y", FLOAT, None)])
        model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)], ir_version=_models.IR_VERSION)
        self.same_class(lambda: geon.InferenceSession(model), lambda: _ort(model))

    def test_closed_library_path_errors_are_ep_failures(self):
        code = "import geon\ntry:\n    geon.InferenceSession(b'')\nexcept geon.EPFail as e:\n    print(type(e).__name__, e.code_name)\n"
        env = dict(os.environ, GEON_PROVIDER="/nonexistent/libgeon_provider.so",
                   PYTHONPATH=os.path.join(_paths.REPO, "python"))
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(out.stdout.strip(), "EPFail NOT_FOUND", out.stderr)


class AliasedAsOnnxruntime(unittest.TestCase):
    def test_pybind11_state_imports_resolve_to_geons_classes_under_the_alias(self):
        code = (
            "import sys, numpy as np, geon\n"
            "sys.modules['onnxruntime'] = geon\n"
            "import onnxruntime as ort\n"
            "from onnxruntime.capi.onnxruntime_pybind11_state import InvalidArgument, NoSuchFile\n"
            "from onnxruntime.capi import onnxruntime_pybind11_state as C\n"
            "print(InvalidArgument is geon.InvalidArgument, C.Fail is geon.Fail)\n"
            "try:\n    ort.InferenceSession('missing.onnx')\nexcept NoSuchFile:\n    print('caught')\n"
        )
        env = dict(os.environ, PYTHONPATH=os.path.join(_paths.REPO, "python"))
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(out.stdout.split(), ["True", "True", "caught"], out.stderr)


class Metadata(unittest.TestCase):
    def test_modelmeta_equals_onnxruntimes(self):
        for with_version in (True, False):
            model = _metadata_model(with_version)
            ours, theirs = geon.InferenceSession(model).get_modelmeta(), _ort(model).get_modelmeta()
            for name in ("producer_name", "graph_name", "domain", "description", "graph_description",
                         "version", "custom_metadata_map"):
                with self.subTest(field=name, with_version=with_version):
                    self.assertEqual(getattr(ours, name), getattr(theirs, name))

    def test_modelmeta_extras(self):
        meta = geon.InferenceSession(_metadata_model()).get_modelmeta()
        self.assertEqual((meta.producer_version, meta.ir_version, meta.opset_imports), ("9.9", _models.IR_VERSION, {"": 17}))

    def test_node_args_equal_onnxruntimes(self):
        model = _dims_model()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours, theirs = geon.InferenceSession(model), _ort(model)
        for method in ("get_inputs", "get_overridable_initializers", "get_outputs"):
            with self.subTest(method=method):
                want = [(a.name, a.type, a.shape) for a in getattr(theirs, method)()]
                got = [(a.name, a.type, a.shape) for a in getattr(ours, method)()]
                if method == "get_outputs":  # onnxruntime infers y's shape; compare names and types
                    want, got = [w[:2] for w in want], [g[:2] for g in got]
                self.assertEqual(got, want)


class OrtValues(unittest.TestCase):
    def test_accessors_equal_onnxruntimes(self):
        for array in (np.ones((2, 3), np.float32), np.arange(5, dtype=np.int64), np.array(True), np.zeros((0, 4), np.float16)):
            ours = geon.OrtValue.ortvalue_from_numpy(array)
            theirs = onnxruntime.OrtValue.ortvalue_from_numpy(array)
            with self.subTest(dtype=str(array.dtype)):
                for name in ("shape", "data_type", "element_type", "device_name", "is_tensor", "has_value"):
                    self.assertEqual(getattr(ours, name)(), getattr(theirs, name)(), name)
                np.testing.assert_array_equal(ours.numpy(), theirs.numpy())

    def test_numpy_shares_memory_as_onnxruntimes(self):
        value = geon.OrtValue.ortvalue_from_numpy(np.zeros(3, np.float32))
        value.numpy()[1] = 5
        self.assertEqual(value.numpy()[1], 5)
        value.update_inplace(np.array([1, 2, 3], np.float32))
        np.testing.assert_array_equal(value.numpy(), [1, 2, 3])

    def test_run_with_ort_values_matches_run(self):
        model = _models.mlp(seed=4)
        x = np.random.default_rng(4).standard_normal((3, 16)).astype(np.float32)
        session = geon.InferenceSession(model)
        values = session.run_with_ort_values(None, {"x": geon.OrtValue.ortvalue_from_numpy(x)})
        want = _ort(model).run(None, {"x": x})
        self.assertEqual([type(v).__name__ for v in values], ["OrtValue", "OrtValue"])
        for got, expected in zip(values, want):
            np.testing.assert_allclose(got.numpy(), expected, rtol=1e-3, atol=1e-5)

    def test_device_memory_is_refused_with_a_clear_error(self):
        with self.assertRaises(geon.NotImplemented) as caught:
            geon.OrtValue.ortvalue_from_numpy(np.zeros(3, np.float32), "cuda", 0)
        self.assertIn("CUDA", str(caught.exception))


class IoBinding(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.model = _models.mlp(seed=3)
        cls.session = geon.InferenceSession(cls.model)
        rng = np.random.default_rng(3)
        cls.x = rng.standard_normal((4, 16)).astype(np.float32)
        cls.want_y, cls.want_hidden = _ort(cls.model).run(None, {"x": cls.x})

    def test_bound_output_buffer_is_written_in_place(self):
        y = np.full((4, 8), np.nan, np.float32)
        address = y.ctypes.data
        binding = self.session.io_binding()
        binding.bind_cpu_input("x", self.x)
        binding.bind_output("y", "cpu", 0, np.float32, [4, 8], address)
        binding.bind_output("hidden")
        self.assertIsNone(self.session.run_with_iobinding(binding))
        self.assertEqual(y.ctypes.data, address)
        np.testing.assert_allclose(y, self.want_y, rtol=1e-3, atol=1e-5)
        y_value, hidden_value = binding.get_outputs()
        self.assertEqual(y_value.data_ptr(), address)  # the OrtValue views the caller's buffer
        np.testing.assert_allclose(hidden_value.numpy(), self.want_hidden, rtol=1e-3, atol=1e-5)
        copies = binding.copy_outputs_to_cpu()
        self.assertNotEqual(copies[0].ctypes.data, address)
        np.testing.assert_array_equal(copies[0], y)

    def test_raw_pointer_input_and_ortvalue_output(self):
        x = self.x.copy()
        hidden = geon.OrtValue.ortvalue_from_shape_and_type([4, 32], np.float32)
        binding = self.session.io_binding()
        binding.bind_input("x", "cpu", 0, np.float32, [4, 16], x.ctypes.data)
        binding.bind_ortvalue_output("hidden", hidden)
        self.session.run_with_iobinding(binding)
        np.testing.assert_allclose(hidden.numpy(), self.want_hidden, rtol=1e-3, atol=1e-5)
        binding.clear_binding_outputs()
        with self.assertRaises(RuntimeError):  # no output bound: as onnxruntime
            self.session.run_with_iobinding(binding)

    def test_wrong_buffer_shape_is_invalid_argument(self):
        y = np.zeros((3, 8), np.float32)
        binding = self.session.io_binding()
        binding.bind_cpu_input("x", self.x)
        binding.bind_output("y", "cpu", 0, np.float32, [3, 8], y.ctypes.data)
        with self.assertRaises(geon.InvalidArgument):
            self.session.run_with_iobinding(binding)

    def test_unknown_names_and_device_buffers_are_refused(self):
        binding = self.session.io_binding()
        with self.assertRaises(RuntimeError):
            binding.bind_cpu_input("nope", self.x)
        with self.assertRaises(RuntimeError):
            binding.bind_output("nope")
        for call in (lambda: binding.bind_input("x", "cuda", 0, np.float32, [4, 16], self.x.ctypes.data),
                     lambda: binding.bind_output("y", "cuda", 0, np.float32, [4, 8], 0)):
            with self.assertRaises(geon.NotImplemented) as caught:
                call()
            self.assertIn("CUDA", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
