"""Maps (ai.onnx.ml) through the Python package: dicts in, dicts out, lists of dicts for sequences
of maps, and the ops that make and read them (ZipMap, DictVectorizer, CastMap) against ONNX
Runtime on the same models and inputs.

- A map and a sequence of maps fed as graph outputs come back as fed (ONNX Runtime cannot return
  a fed sequence of maps, so the fed values are the reference there).
- ZipMap with string and int64 labels; DictVectorizer with string and int64 keys over float,
  double, int64 and string values, keys outside the vocabulary ignored (a naive lookup, and ONNX
  Runtime where its Python binding can feed the map); CastMap to float, string and int64, dense
  and sparse (ONNX Runtime), and of text values (the numbers they spell).
- The declared types read as ONNX Runtime's NodeArg.type; a wrong Python value is a clear error.
"""

import unittest

import numpy as np
import onnxruntime
from onnx import TensorProto, helper

import geon

ML = "ai.onnx.ml"


def _map_type(key, value):
    return helper.make_map_type_proto(key, helper.make_tensor_type_proto(value, []))


def _model(nodes, inputs, outputs):
    graph = helper.make_graph(nodes, "maps", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid(ML, 3)])
    model.ir_version = 8
    return model.SerializeToString()


def _both(model, feed):
    got = geon.InferenceSession(model).run(None, feed)
    want = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feed)
    return got, want


class MapsTest(unittest.TestCase):
    def assert_same(self, got, want):
        if isinstance(want, np.ndarray):
            self.assertEqual(got.shape, want.shape)
            self.assertEqual(got.dtype, want.dtype)
            if want.dtype == object:
                self.assertEqual(got.tolist(), want.tolist())
            else:
                np.testing.assert_allclose(got, want, rtol=1e-6)
        elif isinstance(want, list):
            self.assertEqual(len(got), len(want))
            for g, w in zip(got, want):
                self.assert_same(g, w)
        else:
            self.assertEqual(list(got.keys()), list(want.keys()))
            for k in want:
                self.assertAlmostEqual(got[k], want[k], places=5)

    def test_fed_maps_come_back_as_fed(self):
        m = helper.make_value_info("m", _map_type(TensorProto.INT64, TensorProto.FLOAT))
        s = helper.make_value_info("s", helper.make_sequence_type_proto(_map_type(TensorProto.STRING, TensorProto.DOUBLE)))
        session = geon.InferenceSession(_model([], [m, s], [m, s]))
        self.assertEqual([i.type for i in session.get_inputs()],
                         ["map(int64,tensor(float))", "seq(map(string,tensor(double)))"])
        fed_m = {3: 1.5, 1: -2.0}
        fed_s = [{"a": 1.0}, {}, {"x": 2.0, "y": 3.0}]
        got_m, got_s = session.run(None, {"m": fed_m, "s": fed_s})
        self.assertEqual(got_m, fed_m)
        self.assertEqual(got_s, fed_s)
        for bad, why in [({"m": [1.0], "s": []}, "pass a dict"),
                         ({"m": {}, "s": {"a": 1.0}}, "pass a list of dicts"),
                         ({"m": {"k": 1.0}, "s": []}, "m keys")]:
            with self.assertRaises(geon.GeonError) as caught:
                session.run(None, bad)
            self.assertIn(why, str(caught.exception))

    def test_zipmap_string_and_int64_labels(self):
        rng = np.random.default_rng(0)
        x = rng.random((3, 4)).astype(np.float32)
        for attr in ({"classlabels_strings": ["a", "b", "c", "d"]}, {"classlabels_int64s": [10, 2, 7, 4]}):
            key = TensorProto.STRING if "classlabels_strings" in attr else TensorProto.INT64
            with self.subTest(attr=list(attr)[0]):
                model = _model([helper.make_node("ZipMap", ["x"], ["z"], domain=ML, **attr)],
                               [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
                               [helper.make_value_info("z", helper.make_sequence_type_proto(
                                   _map_type(key, TensorProto.FLOAT)))])
                got, want = _both(model, {"x": x})
                self.assert_same(got[0], want[0])

    def test_dictvectorizer_keys_and_value_types(self):
        # (key, value, vocabulary, fed map, whether ONNX Runtime's Python binding can feed it)
        cases = [
            (TensorProto.STRING, TensorProto.FLOAT, {"string_vocabulary": ["b", "a", "z"]},
             {"a": 1.5, "b": -2.0, "q": 9.0}, True),
            (TensorProto.INT64, TensorProto.FLOAT, {"int64_vocabulary": [5, 1, 3]}, {1: 0.25, 3: 4.0, 8: 1.0}, True),
            (TensorProto.STRING, TensorProto.DOUBLE, {"string_vocabulary": ["x", "y"]}, {"y": 7.0}, False),
            (TensorProto.INT64, TensorProto.DOUBLE, {"int64_vocabulary": [2, 1]}, {1: 3.5}, False),
            (TensorProto.STRING, TensorProto.INT64, {"string_vocabulary": ["x", "y"]}, {"y": 7}, False),
            (TensorProto.INT64, TensorProto.STRING, {"int64_vocabulary": [2, 1]}, {1: "one"}, False),
        ]
        for key, value, attr, feed, ort_feeds in cases:
            with self.subTest(key=key, value=value):
                model = _model([helper.make_node("DictVectorizer", ["m"], ["v"], domain=ML, **attr)],
                               [helper.make_value_info("m", _map_type(key, value))],
                               [helper.make_tensor_value_info("v", value, None)])
                got = geon.InferenceSession(model).run(None, {"m": feed})[0]
                # The naive lookup: each vocabulary entry's value, zero (or "") where absent.
                vocabulary = list(attr.values())[0]
                zero = "" if value == TensorProto.STRING else 0
                self.assertEqual(got.shape, (1, len(vocabulary)))
                self.assertEqual(got.tolist(), [[feed.get(w, zero) for w in vocabulary]])
                if ort_feeds:
                    want = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
                        None, {"m": feed})[0]
                    self.assert_same(got, want)

    def _castmap(self, value, cast_to, out, form):
        return _model([helper.make_node("CastMap", ["m"], ["y"], domain=ML, cast_to=cast_to, map_form=form,
                                        max_map=8)],
                      [helper.make_value_info("m", _map_type(TensorProto.INT64, value))],
                      [helper.make_tensor_value_info("y", out, None)])

    def test_castmap_dense_and_sparse_to_every_type(self):
        feed = {3: 1.5, 0: 2.0, 5: -1.0}
        for cast_to, out in (("TO_FLOAT", TensorProto.FLOAT), ("TO_STRING", TensorProto.STRING),
                             ("TO_INT64", TensorProto.INT64)):
            for form in ("DENSE", "SPARSE"):
                with self.subTest(cast_to=cast_to, form=form):
                    got, want = _both(self._castmap(TensorProto.FLOAT, cast_to, out, form), {"m": feed})
                    self.assert_same(got[0], want[0])

    def test_castmap_of_text_values(self):
        # ONNX Runtime's Python binding cannot feed map(int64, string): the reference is the
        # values read as numbers, in key order.
        feed = {3: "7", 0: "2", 5: "-1"}
        for cast_to, out, want in (("TO_FLOAT", TensorProto.FLOAT, [[2.0, 7.0, -1.0]]),
                                   ("TO_INT64", TensorProto.INT64, [[2, 7, -1]]),
                                   ("TO_STRING", TensorProto.STRING, [["2", "7", "-1"]])):
            with self.subTest(cast_to=cast_to):
                got = geon.InferenceSession(self._castmap(TensorProto.STRING, cast_to, out, "DENSE")).run(
                    None, {"m": feed})[0]
                self.assertEqual(got.tolist(), want)
        with self.assertRaises(geon.GeonError) as caught:
            geon.InferenceSession(self._castmap(TensorProto.STRING, "TO_FLOAT", TensorProto.FLOAT, "DENSE")).run(
                None, {"m": {1: "not a number"}})
        self.assertIn("not a number", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
