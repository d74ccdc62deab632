"""geon.InferenceSession over the built library (GEON_PROVIDER): results against onnxruntime,
metadata, output subsets, error reporting, options, profiling and the placement report."""

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import unittest

import numpy as np
import onnx
import onnxruntime

import _models
import _paths
import geon

# MatMul accumulation order differs between oneDNN and onnxruntime's MLAS; results of order 1
# agree to ~1e-6, so the ONNX rtol with an absolute floor a little above float32 noise.
RTOL, ATOL = 1e-3, 1e-5
PROVIDER_LISTS = [None, ["cpu.dnnl", "cpu.generic"], ["cpu"], ["CPUExecutionProvider"]]


@contextlib.contextmanager
def _working_directory(folder):
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def _reference(model, feed, output_names=None):
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(output_names, feed)


def _mlp_models():
    """The MLP built here, and models/mlp.onnx when helper scripts have made it."""
    models = [("built", _models.mlp(seed=3))]
    committed = os.path.join(_paths.REPO, "models", "mlp.onnx")
    if os.path.exists(committed):
        models.append(("models/mlp.onnx", onnx.load(committed)))
    return models


def _random(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _feed_for(model, batch, seed):
    rng = np.random.default_rng(seed)
    feed = {}
    initializers = {i.name for i in model.graph.initializer}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        dims = [d.dim_value if d.HasField("dim_value") else batch for d in value.type.tensor_type.shape.dim]
        feed[value.name] = rng.standard_normal(dims).astype(np.float32)
    return feed


class Results(unittest.TestCase):
    def test_mlp_matches_onnxruntime_for_each_provider_list(self):
        for label, model in _mlp_models():
            for providers in PROVIDER_LISTS:
                session = geon.InferenceSession(model.SerializeToString(), providers=providers)
                for batch in (1, 5):
                    with self.subTest(model=label, providers=providers, batch=batch):
                        feed = _feed_for(model, batch, seed=batch)
                        got = session.run(None, feed)
                        want = _reference(model, feed)
                        self.assertEqual(len(got), len(want))
                        for g, w in zip(got, want):
                            self.assertEqual(g.dtype, w.dtype)
                            self.assertEqual(g.shape, w.shape)
                            np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)

    def test_path_bytes_and_model_proto_give_the_same_results(self):
        model = _models.mlp(seed=4)
        feed = _feed_for(model, 3, seed=1)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "mlp.onnx")
            onnx.save(model, path)
            results = [
                geon.InferenceSession(source).run(None, feed)
                for source in (path, model.SerializeToString(), model)
            ]
        for other in results[1:]:
            for a, b in zip(results[0], other):
                np.testing.assert_array_equal(a, b)

    def test_external_data_of_a_model_in_bytes_is_read_from_base_dir_only(self):
        model = _models.mlp(seed=10)
        feed = _feed_for(model, 2, seed=3)
        want = geon.InferenceSession(model).run(None, feed)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "mlp.onnx")
            onnx.save(model, path, save_as_external_data=True, location="weights.bin", size_threshold=0)
            data = onnx.load(path, load_external_data=False).SerializeToString()
            got = geon.InferenceSession(data, base_dir=tmp).run(None, feed)
            with self.assertRaises(geon.GeonError):
                geon.InferenceSession(data)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)

    def test_non_contiguous_input_gives_the_contiguous_result_and_is_not_modified(self):
        model = _models.mlp(seed=5)
        session = geon.InferenceSession(model)
        base = np.random.default_rng(2).standard_normal((16, 6)).astype(np.float32)
        view = base.T  # Fortran-ordered view: (6, 16)
        self.assertFalse(view.flags.c_contiguous)
        before = base.copy()
        got = session.run(["y"], {"x": view})[0]
        want = session.run(["y"], {"x": np.ascontiguousarray(view)})[0]
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(base, before)

    def test_contiguous_input_is_not_modified(self):
        session = geon.InferenceSession(_models.mlp(seed=5))
        x = np.random.default_rng(3).standard_normal((4, 16)).astype(np.float32)
        before = x.copy()
        session.run(None, {"x": x})
        np.testing.assert_array_equal(x, before)

    def test_outputs_outlive_the_session(self):
        model = _models.mlp(seed=6)
        feed = _feed_for(model, 2, seed=0)
        session = geon.InferenceSession(model)
        got = session.run(None, feed)
        del session
        for g, w in zip(got, _reference(model, feed)):
            np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)

    def test_array_likes_take_the_declared_element_type(self):
        session = geon.InferenceSession(_models.mlp(seed=5))
        rows = [[0.5] * 16, [-1.0] * 16]
        (y,) = session.run(["y"], {"x": rows})
        np.testing.assert_array_equal(y, session.run(["y"], {"x": np.array(rows, np.float32)})[0])

    def test_empty_batch_gives_empty_outputs(self):
        y, hidden = geon.InferenceSession(_models.mlp()).run(None, {"x": np.zeros((0, 16), np.float32)})
        self.assertEqual((y.shape, hidden.shape), ((0, 8), (0, 32)))

    def test_byte_swapped_input_gives_the_native_result(self):
        session = geon.InferenceSession(_models.mlp(seed=5))
        x = _random((3, 16), seed=8)
        want = session.run(["y"], {"x": x})[0]
        np.testing.assert_array_equal(session.run(["y"], {"x": x.astype(">f4")})[0], want)

    def test_rank_zero_inputs_and_outputs(self):
        session = geon.InferenceSession(_models.add_scalar())
        self.assertEqual(session.get_inputs()[0].shape, [])
        (z,) = session.run(None, {"x": 1.5, "y": np.array(2.25, np.float32)})
        self.assertEqual(z.shape, ())
        self.assertEqual(float(z), 3.75)

    def test_concurrent_runs_match_sequential_runs(self):
        session = geon.InferenceSession(_models.mlp(seed=7))
        feeds = [{"x": _random((s + 1, 16), seed=s)} for s in range(8)]
        sequential = [session.run(["y"], f)[0] for f in feeds]
        results = [None] * len(feeds)
        errors = []

        def work(k):
            try:
                for _ in range(10):
                    results[k] = session.run(["y"], feeds[k])[0]
            except Exception as e:  # reported below: a thread's exception is otherwise lost
                errors.append(e)

        threads = [threading.Thread(target=work, args=(k,)) for k in range(len(feeds))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        for got, want in zip(results, sequential):
            np.testing.assert_array_equal(got, want)


class RunPath(unittest.TestCase):
    """Run's fast path caches names, shapes and element types per session; these pin down
    that what it caches never mixes up inputs, shapes or results."""

    @classmethod
    def setUpClass(cls):
        cls.session = geon.InferenceSession(_models.subtract())

    def test_feed_order_does_not_change_which_input_is_which(self):
        a, b = _random(5, seed=20), _random(5, seed=21)
        (forward,) = self.session.run(None, {"x": a, "y": b})
        (backward,) = self.session.run(None, {"y": b, "x": a})
        np.testing.assert_array_equal(forward, a - b)
        np.testing.assert_array_equal(backward, a - b)

    def test_read_only_and_offset_inputs_give_the_same_result(self):
        a, b = _random(7, seed=22), _random(8, seed=23)
        frozen = a.copy()
        frozen.setflags(write=False)
        offset = b[1:]  # contiguous, but starting inside another array's memory
        (z,) = self.session.run(None, {"x": frozen, "y": offset})
        np.testing.assert_array_equal(z, a - b[1:])

    def test_many_distinct_shapes_give_correct_results(self):
        # More shapes than the session's caches keep, in an order that revisits old ones.
        for n in list(range(1, 301)) + [3, 300, 1]:
            a, b = _random(n, seed=n), _random(n, seed=1000 + n)
            names = ["z"] if n % 2 else None
            (z,) = self.session.run(names, {"x": a, "y": b})
            self.assertEqual(z.shape, (n,))
            np.testing.assert_array_equal(z, a - b)

    def test_outputs_of_a_run_are_not_changed_by_later_runs(self):
        a, b = _random(6, seed=24), _random(6, seed=25)
        (first,) = self.session.run(None, {"x": a, "y": b})
        kept = first.copy()
        for seed in range(5):
            self.session.run(None, {"x": _random(6, seed=seed), "y": b})
        np.testing.assert_array_equal(first, kept)


    def test_inputs_the_quickest_path_declines_still_give_correct_results(self):
        # A run of plain arrays caches the shapes; the same shapes then come as a misaligned
        # view, a strided view and a read-only array, each of which goes the general way.
        a, b = _random(9, seed=26), _random(9, seed=27)
        self.session.run(None, {"x": a, "y": b})
        raw = np.zeros(9 * 4 + 1, np.uint8)
        misaligned = raw[1:].view(np.float32)
        misaligned[:] = a
        self.assertNotEqual(misaligned.ctypes.data % 4, 0)
        strided = _random(18, seed=28)[::2]
        frozen = b.copy()
        frozen.setflags(write=False)
        for x, y in ((misaligned, b), (strided, b), (a, frozen), (a, b)):
            (z,) = self.session.run(None, {"x": x, "y": y})
            np.testing.assert_array_equal(z, np.asarray(x) - np.asarray(y))

    def test_a_cached_shape_with_another_dtype_is_still_refused(self):
        a, b = _random(4, seed=29), _random(4, seed=30)
        self.session.run(None, {"x": a, "y": b})
        with self.assertRaises(geon.GeonError) as caught:
            self.session.run(None, {"x": a.astype(np.float64), "y": b})
        self.assertIn("x", str(caught.exception))

    def test_output_shapes_that_depend_on_values_are_not_taken_from_the_last_run(self):
        session = geon.InferenceSession(_models.nonzero())
        for values in ([0, 1, 2, 0], [3, 0, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0], [0, 5, 0, 6]):
            x = np.array(values, np.float32)
            for _ in range(2):  # the second run of each has the first one's shapes cached
                (i,) = session.run(None, {"x": x})
                np.testing.assert_array_equal(i, np.array([np.nonzero(x)[0]], np.int64))

    def test_output_subsets_of_one_feed_are_cached_apart(self):
        session = geon.InferenceSession(_models.mlp(seed=9))
        feed = _feed_for(_models.mlp(seed=9), 3, seed=5)
        for _ in range(2):
            y, hidden = session.run(None, feed)
            (only_hidden,) = session.run(["hidden"], feed)
            (only_y,) = session.run(["y"], feed)
            np.testing.assert_array_equal(only_hidden, hidden)
            np.testing.assert_array_equal(only_y, y)
            self.assertEqual(only_hidden.shape, (3, 32))
            self.assertEqual(only_y.shape, (3, 8))


class ElementTypes(unittest.TestCase):
    def test_identity_round_trips_each_element_type(self):
        rng = np.random.default_rng(11)
        numbers = [
            onnx.TensorProto.FLOAT,
            onnx.TensorProto.DOUBLE,
            onnx.TensorProto.FLOAT16,
            onnx.TensorProto.BOOL,
            onnx.TensorProto.INT8,
            onnx.TensorProto.UINT8,
            onnx.TensorProto.INT16,
            onnx.TensorProto.UINT16,
            onnx.TensorProto.INT32,
            onnx.TensorProto.INT64,
            onnx.TensorProto.UINT32,
            onnx.TensorProto.UINT64,
        ]
        for number in numbers:
            dtype = onnx.helper.tensor_dtype_to_np_dtype(number)
            with self.subTest(dtype=str(dtype)):
                x = (rng.standard_normal((3, 5)) * 50).astype(dtype)
                session = geon.InferenceSession(_models.identity(number, ["n", 5]))
                name = onnx.TensorProto.DataType.Name(number).lower()
                self.assertEqual(session.get_inputs()[0].type, "tensor(%s)" % name)
                (y,) = session.run(None, {"x": x})
                self.assertEqual(y.dtype, x.dtype)
                np.testing.assert_array_equal(y, x)

    def test_identity_round_trips_ml_dtypes_types(self):
        try:
            import ml_dtypes  # noqa: F401
        except ImportError:
            self.skipTest("ml_dtypes is not installed")
        rng = np.random.default_rng(12)
        for number in (
            onnx.TensorProto.BFLOAT16,
            onnx.TensorProto.FLOAT8E4M3FN,
            onnx.TensorProto.FLOAT8E5M2,
            onnx.TensorProto.INT4,
            onnx.TensorProto.UINT4,
        ):
            dtype = onnx.helper.tensor_dtype_to_np_dtype(number)
            with self.subTest(dtype=str(dtype)):
                x = rng.integers(0, 7, size=(3, 5)).astype(dtype)
                (y,) = geon.InferenceSession(_models.identity(number, [3, 5])).run(None, {"x": x})
                self.assertEqual(y.dtype, x.dtype)
                np.testing.assert_array_equal(y.astype(np.float32), x.astype(np.float32))


class Metadata(unittest.TestCase):
    def test_inputs_and_outputs_report_names_types_and_symbolic_dims(self):
        session = geon.InferenceSession(_models.mlp())
        inputs, outputs = session.get_inputs(), session.get_outputs()
        self.assertEqual([i.name for i in inputs], ["x"])
        self.assertEqual(inputs[0].type, "tensor(float)")
        self.assertEqual(inputs[0].shape, ["batch", 16])
        self.assertFalse(inputs[0].has_default)
        self.assertEqual([(o.name, o.type, o.shape) for o in outputs], [
            ("y", "tensor(float)", ["batch", 8]),
            ("hidden", "tensor(float)", ["batch", 32]),
        ])

    def test_output_subset_comes_back_in_the_order_asked(self):
        model = _models.mlp(seed=8)
        session = geon.InferenceSession(model)
        feed = _feed_for(model, 2, seed=4)
        y, hidden = session.run(None, feed)
        only = session.run(["hidden"], feed)
        self.assertEqual(len(only), 1)
        np.testing.assert_array_equal(only[0], hidden)
        swapped = session.run(["hidden", "y"], feed)
        np.testing.assert_array_equal(swapped[0], hidden)
        np.testing.assert_array_equal(swapped[1], y)


class Errors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.session = geon.InferenceSession(_models.mlp())
        cls.x = np.zeros((2, 16), np.float32)

    def assertGeonError(self, call, *fragments):
        with self.assertRaises(geon.GeonError) as caught:
            call()
        message = str(caught.exception)
        for fragment in fragments:
            self.assertIn(fragment, message)
        self.assertNotEqual(caught.exception.code, 0)
        return caught.exception

    def test_wrong_input_name(self):
        error = self.assertGeonError(lambda: self.session.run(None, {"x": self.x, "not_x": self.x}), "not_x")
        self.assertIsInstance(error, geon.InvalidArgument)

    def test_missing_input(self):
        # onnxruntime checks this before running, with a ValueError naming the missing inputs.
        for feed in ({}, {"not_x": self.x}):
            with self.subTest(feed=list(feed)):
                with self.assertRaises(ValueError) as caught:
                    self.session.run(None, feed)
                self.assertIn("['x']", str(caught.exception))

    def test_wrong_dtype(self):
        self.assertGeonError(lambda: self.session.run(None, {"x": self.x.astype(np.float64)}), "x")

    def test_wrong_rank_and_length(self):
        self.assertGeonError(lambda: self.session.run(None, {"x": np.zeros((2, 15), np.float32)}), "x")
        self.assertGeonError(lambda: self.session.run(None, {"x": np.zeros(16, np.float32)}), "x")

    def test_unknown_output_name(self):
        self.assertGeonError(lambda: self.session.run(["nope"], {"x": self.x}), "nope")

    def test_string_array_for_a_float_input_names_the_input(self):
        # Strings pass through the C ABI (test_strings.py); fed to a float input they are the
        # library's dtype mismatch, named with the input.
        error = self.assertGeonError(lambda: self.session.run(None, {"x": np.array(["a"])}), "x")
        self.assertEqual(error.code_name, "INVALID_ARGUMENT")
        self.assertIn("string", str(error))

    def test_bad_model_bytes(self):
        self.assertGeonError(lambda: geon.InferenceSession(b"\x08\x07not a model"))

    def test_missing_model_file(self):
        path = "/nonexistent/model.onnx"
        error = self.assertGeonError(lambda: geon.InferenceSession(path), path)
        self.assertEqual(error.code_name, "NOT_FOUND")

    def test_sparse_tensor_input_is_refused_at_creation(self):
        # Tensors, sequences, optionals and maps cross the C ABI; sparse tensors do not (yet).
        sparse = onnx.helper.make_sparse_tensor_value_info("m", onnx.TensorProto.FLOAT, [4, 4])
        x = onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2])
        y = onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2])
        graph = onnx.helper.make_graph(
            [onnx.helper.make_node("Identity", ["x"], ["y"])], "sparse", [sparse, x], [y])
        model = onnx.helper.make_model(
            graph, opset_imports=[onnx.helper.make_opsetid("", 18)], ir_version=_models.IR_VERSION)
        error = self.assertGeonError(lambda: geon.InferenceSession(model), "'m'", "sparse")
        self.assertEqual(error.code_name, "UNSUPPORTED")

    def test_session_still_runs_after_errors(self):
        with self.assertRaises(geon.GeonError):
            self.session.run(None, {"x": np.zeros((2, 3), np.float32)})
        (y, _) = self.session.run(None, {"x": self.x})
        self.assertEqual(y.shape, (2, 8))


CREATE_AND_PRINT_ERROR = """import geon
try:
    geon.InferenceSession(b"")
except geon.GeonError as e:
    print(e.code_name, e)
"""


class Library(unittest.TestCase):
    def _python(self, code, env_provider):
        env = dict(os.environ)
        env.pop("GEON_PROVIDER", None)
        if env_provider is not None:
            env["GEON_PROVIDER"] = env_provider
        env["PYTHONPATH"] = os.pathsep.join([os.path.join(_paths.REPO, "python"), env.get("PYTHONPATH", "")])
        return subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
        )

    def test_unset_library_path_says_how_to_set_it(self):
        code = CREATE_AND_PRINT_ERROR
        out = self._python(code, None)
        self.assertIn("NOT_FOUND", out.stdout)
        self.assertIn("GEON_PROVIDER", out.stdout)
        self.assertIn("set_library_path", out.stdout)

    def test_set_library_path_loads_the_library(self):
        path = geon.library_path()
        code = "import geon\ngeon.set_library_path(%r)\nprint(geon.get_library_version())\n" % path
        out = self._python(code, None)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.strip(), geon.get_library_version())

    def test_wrong_library_path_names_it(self):
        code = CREATE_AND_PRINT_ERROR
        out = self._python(code, "/nonexistent/libgeon_provider.so")
        self.assertIn("NOT_FOUND", out.stdout)
        self.assertIn("/nonexistent/libgeon_provider.so", out.stdout)

    def test_library_version_names_a_version(self):
        self.assertRegex(geon.get_library_version(), r"\d+\.\d+\.\d+")


class Options(unittest.TestCase):
    def test_attributes_round_trip_through_the_session(self):
        options = geon.SessionOptions()
        options.intra_op_num_threads = 2
        options.graph_optimization_level = 0
        options.strict = True
        options.enable_profiling = True
        options.log_level = "warning"
        options.arena_limit_bytes = 1 << 30
        options.poison_freed = True
        # strict: every node of the model must run on the first set, so an elementwise model
        session = geon.InferenceSession(_models.add_scalar(), sess_options=options, providers=["cpu.generic"])
        kept = session.get_session_options()
        for name in ("intra_op_num_threads", "graph_optimization_level", "strict", "enable_profiling",
                     "log_level", "arena_limit_bytes", "poison_freed"):
            self.assertEqual(getattr(kept, name), getattr(options, name), name)
        self.assertEqual(session.get_providers(), ["cpu.generic"])
        options.intra_op_num_threads = 7  # the session took a copy
        self.assertEqual(session.get_session_options().intra_op_num_threads, 2)

    def test_option_values_change_nothing_in_results(self):
        model = _models.mlp(seed=9)
        feed = _feed_for(model, 4, seed=9)
        want = geon.InferenceSession(model).run(None, feed)
        for name, value in (("intra_op_num_threads", 1), ("graph_optimization_level", 0),
                            ("poison_freed", True), ("arena_limit_bytes", 1 << 30)):
            with self.subTest(option=name):
                options = geon.SessionOptions()
                setattr(options, name, value)
                got = geon.InferenceSession(model, sess_options=options).run(None, feed)
                for g, w in zip(got, want):
                    np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)

    def test_bad_values_raise_invalid_argument(self):
        for name, value in (("intra_op_num_threads", -1), ("intra_op_num_threads", 1.5),
                            ("log_level", "loud"), ("arena_limit_bytes", "lots")):
            with self.subTest(option=name, value=value):
                options = geon.SessionOptions()
                setattr(options, name, value)
                with self.assertRaises(geon.GeonError) as caught:
                    geon.InferenceSession(_models.mlp(), sess_options=options)
                self.assertEqual(caught.exception.code_name, "INVALID_ARGUMENT")
                self.assertIn(name, str(caught.exception))

    def test_unknown_raw_key_is_refused_by_the_library(self):
        options = geon.SessionOptions()
        options.add_session_config_entry("no_such_key", "1")
        with self.assertRaises(geon.GeonError) as caught:
            geon.InferenceSession(_models.mlp(), sess_options=options)
        self.assertEqual(caught.exception.code_name, "INVALID_ARGUMENT")
        self.assertIn("no_such_key", str(caught.exception))

    def test_unknown_provider_is_reported(self):
        # An unavailable set is skipped (geon.h); an unknown name is an error or a report entry.
        try:
            session = geon.InferenceSession(_models.mlp(), providers=["no.such.set", "cpu"])
        except geon.GeonError as e:
            self.assertIn("no.such.set", str(e))
        else:
            self.assertIn("no.such.set", json.dumps(session.placement_report()))

    def test_nodes_no_listed_set_runs_are_named(self):
        # cpu.generic has no Conv (cpu.dnnl has), so alone it cannot run a convolution.
        with self.assertRaises(geon.GeonError) as caught:
            geon.InferenceSession(_models.conv(), providers=["cpu.generic"])
        self.assertIn("conv1", str(caught.exception))
        self.assertIn("Conv", str(caught.exception))

    def test_strict_fails_when_the_first_set_refuses_a_node(self):
        # Unfused (level 1), Relu stays a node of its own, which cpu.dnnl has no kernel for, so
        # strict placement on it first must refuse Relu.
        options = geon.SessionOptions()
        options.strict = True
        options.graph_optimization_level = 1
        with self.assertRaises(geon.GeonError) as caught:
            geon.InferenceSession(_models.mlp(), sess_options=options, providers=["cpu.dnnl", "cpu.generic"])
        self.assertIn("Relu", str(caught.exception))


def _cuda_usable():
    options = geon.SessionOptions()
    options.strict = True
    try:
        geon.InferenceSession(_models.add_scalar(), sess_options=options, providers=["cuda"])
        return True
    except geon.GeonError:
        return False


@unittest.skipUnless(_cuda_usable(), "no usable CUDA device (the library says why in its report)")
class CudaDevice(unittest.TestCase):
    def test_mlp_with_cuda_first_matches_onnxruntime(self):
        model = _models.mlp(seed=12)
        session = geon.InferenceSession(model, providers=["cuda", "cpu"])
        report = session.placement_report()
        self.assertIn("cuda", [node["set"] for node in report["nodes"]])
        for batch in (1, 7):
            feed = _feed_for(model, batch, seed=batch)
            for g, w in zip(session.run(None, feed), _reference(model, feed)):
                np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)

    def test_concurrent_runs_on_cuda_match_sequential_runs(self):
        session = geon.InferenceSession(_models.mlp(seed=13), providers=["cuda", "cpu"])
        feeds = [{"x": _random((s + 1, 16), seed=s)} for s in range(4)]
        sequential = [session.run(["y"], f)[0] for f in feeds]
        results = [None] * len(feeds)

        def work(k):
            for _ in range(5):
                results[k] = session.run(["y"], feeds[k])[0]

        threads = [threading.Thread(target=work, args=(k,)) for k in range(len(feeds))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for got, want in zip(results, sequential):
            np.testing.assert_array_equal(got, want)


class Reports(unittest.TestCase):
    def test_profile_is_chrome_trace_json_with_one_event_per_node_run(self):
        options = geon.SessionOptions()
        options.enable_profiling = True
        model = _models.mlp()
        with tempfile.TemporaryDirectory() as folder, _working_directory(folder):
            session = geon.InferenceSession(model, sess_options=options)
            feed = _feed_for(model, 2, seed=0)
            session.run(None, feed)
            session.run(None, feed)
            path = session.end_profiling()
            # onnxruntime's naming: <prefix>_<date>_<time>.json in the current directory
            self.assertRegex(path, r"^geon_profile_\d{4}-\d\d-\d\d_\d\d-\d\d-\d\d_\d{3}\.json$")
            with open(os.path.join(folder, path)) as f:
                events = json.load(f)  # onnxruntime's layout: an array of events
            # profiling has ended: later calls write nothing
            self.assertEqual(session.end_profiling(), "")
        self.assertGreater(len(events), 0)
        for event in events:
            self.assertEqual(event["ph"], "X")
            self.assertEqual(event["cat"], "Node")
            self.assertGreaterEqual(event["dur"], 0)
            self.assertEqual(event["args"]["provider"], "CPUExecutionProvider")
        self.assertEqual(len(events) % 2, 0, "two runs record the same events twice")
        ops = {event["args"]["op_name"] for event in events}
        self.assertTrue(ops & {"MatMul", "geon.FusedMatMul", "FusedMatMul"}, ops)

    def test_profile_file_prefix_names_the_file(self):
        options = geon.SessionOptions()
        options.enable_profiling = True
        options.profile_file_prefix = "my_trace"
        with tempfile.TemporaryDirectory() as folder, _working_directory(folder):
            session = geon.InferenceSession(_models.mlp(), sess_options=options)
            path = session.end_profiling()
            self.assertTrue(path.startswith("my_trace_"), path)
            self.assertEqual(os.listdir(folder), [path])

    def test_profile_is_empty_when_profiling_is_off(self):
        model = _models.mlp()
        with tempfile.TemporaryDirectory() as folder, _working_directory(folder):
            session = geon.InferenceSession(model)
            session.run(None, _feed_for(model, 1, seed=0))
            self.assertEqual(session.end_profiling(), "")
            self.assertEqual(os.listdir(folder), [])

    def test_placement_report_is_a_dict_with_memory(self):
        report = geon.InferenceSession(_models.mlp()).placement_report()
        self.assertIsInstance(report, dict)
        self.assertIn("memory", report)
        text = json.dumps(report)
        for node in ("fc1", "relu", "fc2"):
            self.assertIn(node, text)

    def test_graph_dump_mentions_the_ops(self):
        options = geon.SessionOptions()
        options.graph_optimization_level = 1  # unfused: the model's own ops
        dump = geon.InferenceSession(_models.mlp(), sess_options=options).graph_dump()
        self.assertIn("MatMul", dump)
        self.assertIn("Relu", dump)

    def test_graph_dump_names_fused_nodes_after_their_members(self):
        dump = geon.InferenceSession(_models.mlp()).graph_dump()  # level 2, the default
        self.assertIn("node fc1+fc1_bias+relu = geon.FusedMatMul", dump)


if __name__ == "__main__":
    unittest.main()
