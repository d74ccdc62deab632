"""Sequences and optionals through the Python package (C API version 3's run_values): results
against onnxruntime, onnxruntime's Python conventions (a list of arrays, None), the types
NodeArg reports, and the errors a bad value gets."""

import unittest

import numpy as np
import onnx
import onnx.helper as oh
import onnxruntime

import _models
import geon

FLOAT, INT64 = onnx.TensorProto.FLOAT, onnx.TensorProto.INT64


def _seq(name, elem=FLOAT, shape=None):
    return oh.make_tensor_sequence_value_info(name, elem, shape)


def _tensor(name, elem=FLOAT, shape=None):
    return oh.make_tensor_value_info(name, elem, shape)


def _optional(name, inner):
    return oh.make_value_info(name, oh.make_optional_type_proto(inner))


def _model(nodes, inputs, outputs, opset=18):
    graph = oh.make_graph(nodes, "values", inputs, outputs)
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", opset)], ir_version=_models.IR_VERSION)


def _same(test, got, want):
    if want is None:
        test.assertIsNone(got)
    elif isinstance(want, list):
        test.assertIsInstance(got, list)
        test.assertEqual(len(got), len(want))
        for g, w in zip(got, want):
            _same(test, g, w)
    elif np.asarray(want).dtype == object:  # strings
        test.assertEqual(got.dtype, object)
        test.assertEqual(got.tolist(), np.asarray(want).tolist())
    else:
        test.assertEqual(got.dtype, np.asarray(want).dtype)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


class Values(unittest.TestCase):
    def check(self, model, feed):
        """Runs model on geon and on onnxruntime; the outputs must agree."""
        got = geon.InferenceSession(model.SerializeToString()).run(None, feed)
        reference = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        want = reference.run(None, feed)
        self.assertEqual(len(got), len(want))
        for g, w in zip(got, want):
            _same(self, g, w)
        return got

    def test_sequence_input_at_and_length(self):
        model = _model(
            [oh.make_node("SequenceAt", ["s", "i"], ["x"]), oh.make_node("SequenceLength", ["s"], ["n"])],
            [_seq("s"), _tensor("i", INT64, [])],
            [_tensor("x"), _tensor("n", INT64, [])],
        )
        rng = np.random.default_rng(0)
        ragged = [rng.standard_normal(shape).astype(np.float32) for shape in [(2, 3), (4,), (1, 1, 5)]]
        for i in (0, 2, -1, -3):
            self.check(model, {"s": ragged, "i": np.array(i, np.int64)})

    def test_construct_insert_erase_concat(self):
        model = _model(
            [
                oh.make_node("SequenceConstruct", ["a", "b"], ["s"]),
                oh.make_node("SequenceInsert", ["s", "a", "pos"], ["s2"]),
                oh.make_node("SequenceErase", ["s2"], ["s3"]),
                oh.make_node("ConcatFromSequence", ["s2"], ["cat"], axis=1),
                oh.make_node("ConcatFromSequence", ["s3"], ["stack"], axis=-1, new_axis=1),
            ],
            [_tensor("a", FLOAT, [2, 3]), _tensor("b", FLOAT, [2, 3]), _tensor("pos", INT64, [])],
            [_seq("s2"), _tensor("cat"), _tensor("stack")],
        )
        rng = np.random.default_rng(1)
        a, b = (rng.standard_normal((2, 3)).astype(np.float32) for _ in range(2))
        for pos in (0, 1, 2, -2):
            self.check(model, {"a": a, "b": b, "pos": np.array(pos, np.int64)})

    def test_split_to_sequence_forms(self):
        rng = np.random.default_rng(2)
        x = rng.standard_normal((5, 4)).astype(np.float32)
        for split, attrs in [(None, {}), (None, {"keepdims": 0, "axis": 1}), (np.array(2, np.int64), {}),
                             (np.array([1, 3, 1], np.int64), {})]:
            inputs = ["x"] + (["split"] if split is not None else [])
            declared = [_tensor("x", FLOAT, [5, 4])] + ([_tensor("split", INT64, None)] if split is not None else [])
            model = _model([oh.make_node("SplitToSequence", inputs, ["s"], **attrs)], declared, [_seq("s")])
            feed = {"x": x}
            if split is not None:
                feed["split"] = split
            (pieces,) = self.check(model, feed)
            self.assertGreater(len(pieces), 1)

    def test_optional_input_none_or_value(self):
        inner = oh.make_tensor_type_proto(FLOAT, [3])
        model = _model(
            [oh.make_node("OptionalHasElement", ["o"], ["has"]), oh.make_node("Identity", ["o"], ["same"])],
            [_optional("o", inner)],
            [_tensor("has", onnx.TensorProto.BOOL, []), _optional("same", inner)],
        )
        session = geon.InferenceSession(model.SerializeToString())
        self.assertEqual(session.get_inputs()[0].type, "optional(tensor(float))")
        has, same = session.run(None, {"o": None})
        self.assertFalse(bool(has))
        self.assertIsNone(same)
        x = np.arange(3, dtype=np.float32)
        has, same = session.run(None, {"o": x})
        self.assertTrue(bool(has))
        np.testing.assert_array_equal(same, x)

    def test_optional_sequence_get_element(self):
        inner = oh.make_sequence_type_proto(oh.make_tensor_type_proto(FLOAT, None))
        model = _model([oh.make_node("OptionalGetElement", ["o"], ["s"])], [_optional("o", inner)], [_seq("s")])
        seq = [np.ones((2,), np.float32), np.zeros((3, 1), np.float32)]
        self.check(model, {"o": seq})

    def test_loop_builds_a_sequence(self):
        # Each iteration appends its counter as a 1-element tensor; the Loop carries the sequence.
        body = oh.make_graph(
            [
                oh.make_node("Identity", ["cond_in"], ["cond_out"]),
                oh.make_node("Cast", ["i"], ["f"], to=FLOAT),
                oh.make_node("Unsqueeze", ["f", "zero"], ["t"]),
                oh.make_node("SequenceInsert", ["seq_in", "t"], ["seq_out"]),
            ],
            "body",
            [_tensor("i", INT64, []), _tensor("cond_in", onnx.TensorProto.BOOL, []), _seq("seq_in")],
            [_tensor("cond_out", onnx.TensorProto.BOOL, []), _seq("seq_out")],
            [oh.make_tensor("zero", INT64, [1], [0])],
        )
        model = _model(
            [
                oh.make_node("SequenceEmpty", [], ["empty"]),
                oh.make_node("Loop", ["n", "", "empty"], ["out"], body=body),
                oh.make_node("ConcatFromSequence", ["out"], ["all"], axis=0),
            ],
            [_tensor("n", INT64, [])],
            [_seq("out"), _tensor("all")],
        )
        got = self.check(model, {"n": np.array(4, np.int64)})
        np.testing.assert_array_equal(got[1], np.arange(4, dtype=np.float32))

    def test_sequence_map_over_ragged_elements(self):
        body = oh.make_graph(
            [oh.make_node("Shape", ["x"], ["shape"]), oh.make_node("Add", ["x", "bias"], ["y"])],
            "body",
            [_tensor("x"), _tensor("bias", FLOAT, [])],
            [_tensor("shape", INT64, [None]), _tensor("y")],
        )
        model = _model(
            [oh.make_node("SequenceMap", ["s", "b"], ["shapes", "ys"], body=body)],
            [_seq("s"), _tensor("b", FLOAT, [])],
            [_seq("shapes", INT64), _seq("ys")],
        )
        rng = np.random.default_rng(3)
        seq = [rng.standard_normal(shape).astype(np.float32) for shape in [(2,), (3, 2), (1, 4, 1)]]
        self.check(model, {"s": seq, "b": np.array(0.5, np.float32)})

    def test_sequences_and_optionals_of_strings(self):
        string = onnx.TensorProto.STRING
        model = _model(
            [
                oh.make_node("SplitToSequence", ["x"], ["s"], axis=0),
                oh.make_node("SequenceInsert", ["s", "x"], ["s2"]),
                oh.make_node("ConcatFromSequence", ["s2"], ["y"], axis=0),
                oh.make_node("SequenceAt", ["q", "i"], ["z"]),
                oh.make_node("Optional", ["x"], ["o"]),
                oh.make_node("OptionalGetElement", ["o"], ["w"]),
            ],
            [_tensor("x", string, [3]), _seq("q", string), _tensor("i", INT64, [])],
            [_seq("s2", string), _tensor("y", string), _tensor("z", string), _tensor("w", string)],
        )
        feed = {"x": np.array(["a", "bé", ""], dtype=object),
                "q": [np.array(["p", "q"], dtype=object), np.array(["r"], dtype=object)]}
        for i in (0, 1, -1):
            self.check(model, dict(feed, i=np.array(i, np.int64)))

    def test_bad_values_are_refused_by_name(self):
        model = _model(
            [oh.make_node("SequenceAt", ["s", "i"], ["x"])],
            [_seq("s"), _tensor("i", INT64, [])],
            [_tensor("x")],
        )
        session = geon.InferenceSession(model.SerializeToString())
        self.assertEqual(session.get_inputs()[0].type, "seq(tensor(float))")
        one = [np.ones(2, np.float32)]
        cases = [
            ({"s": None, "i": np.array(0, np.int64)}, ["'s'", "None"]),
            ({"s": np.ones(2, np.float32), "i": np.array(0, np.int64)}, ["'s'", "list"]),
            ({"s": [np.ones(2, np.int32)], "i": np.array(0, np.int64)}, ["'s'", "int32"]),
            ({"s": one, "i": np.array(1, np.int64)}, ["SequenceAt", "out of range"]),
            ({"s": one, "i": np.array(-2, np.int64)}, ["SequenceAt", "out of range"]),
        ]
        for feed, fragments in cases:
            with self.assertRaises(geon.GeonError) as caught:
                session.run(None, feed)
            for fragment in fragments:
                self.assertIn(fragment, str(caught.exception))
        # The session keeps working after refusals.
        (x,) = session.run(None, {"s": one, "i": np.array(0, np.int64)})
        np.testing.assert_array_equal(x, one[0])

    def test_concat_of_mismatched_elements_is_an_error(self):
        model = _model([oh.make_node("ConcatFromSequence", ["s"], ["y"], axis=0)], [_seq("s")], [_tensor("y")])
        session = geon.InferenceSession(model.SerializeToString())
        with self.assertRaises(geon.GeonError) as caught:
            session.run(None, {"s": [np.ones((2, 3), np.float32), np.ones((2, 4), np.float32)]})
        self.assertIn("element 1", str(caught.exception))
        with self.assertRaises(geon.GeonError) as caught:
            session.run(None, {"s": []})
        self.assertIn("empty", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
