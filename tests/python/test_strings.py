"""String tensors through geon's Python package: numpy object / str / bytes arrays and lists in,
numpy object arrays of str out, checked against onnxruntime on the same models (StringConcat,
a string constant, Transpose, Cast to string, Equal, and ai.onnx.ml LabelEncoder), plus the
errors for elements that are neither str nor bytes."""

import unittest

import numpy as np
import onnx
import onnx.helper as h
import onnxruntime

import _paths  # noqa: F401
import geon

S = onnx.TensorProto.STRING


def _model():
    const = h.make_tensor("K", S, [3], [b"-a", b"-b", "-\u00e9".encode()])
    nodes = [
        h.make_node("Concat", ["X", "X"], ["D"], axis=0),
        h.make_node("Transpose", ["D"], ["T"], perm=[1, 0]),
        h.make_node("Equal", ["X", "K"], ["E"]),
        h.make_node("Cast", ["N"], ["Z"], to=S),
        h.make_node("LabelEncoder", ["X"], ["L"], domain="ai.onnx.ml", keys_strings=["a", "\u00fc"],
                    values_int64s=[1, 2], default_int64=-1),
    ]
    graph = h.make_graph(
        nodes, "strings",
        [h.make_tensor_value_info("X", S, [2, 3]), h.make_tensor_value_info("N", onnx.TensorProto.FLOAT, [3])],
        [h.make_tensor_value_info("T", S, [3, 4]), h.make_tensor_value_info("E", onnx.TensorProto.BOOL, [2, 3]),
         h.make_tensor_value_info("Z", S, [3]), h.make_tensor_value_info("L", onnx.TensorProto.INT64, [2, 3])],
        [const])
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 20), h.make_opsetid("ai.onnx.ml", 2)])
    model.ir_version = 9
    return model.SerializeToString()


class StringTensors(unittest.TestCase):
    def setUp(self):
        self.bytes = _model()
        self.ours = geon.InferenceSession(self.bytes)
        self.ort = onnxruntime.InferenceSession(self.bytes, providers=["CPUExecutionProvider"])

    def test_object_arrays_match_onnxruntime(self):
        x = np.array([["a", "-b", ""], ["\u00fc", "a", "-\u00e9"]], dtype=object)
        n = np.array([0.5, 2.0, -3.25], np.float32)
        got = self.ours.run(None, {"X": x, "N": n})
        want = self.ort.run(None, {"X": x, "N": n})
        for name, g, w in zip(["T", "E", "Z", "L"], got, want):
            self.assertEqual(g.shape, w.shape, name)
            if name == "Z":  # onnxruntime spells floats its own way; read both back as numbers
                np.testing.assert_array_equal(g.astype(np.float32), w.astype(np.float32))
            else:
                np.testing.assert_array_equal(g, w, err_msg=name)
        self.assertEqual(got[0].dtype, object)

    def test_str_arrays_bytes_and_lists_are_accepted(self):
        n = np.zeros(3, np.float32)
        for x in (np.array([["a", "b", "c"], ["d", "e", "f"]]),  # numpy unicode
                  [[b"a", b"b", b"c"], [b"d", b"e", b"f"]],  # bytes in a list
                  [["a", "b", "c"], ["d", "e", "f"]]):
            (t,) = self.ours.run(["T"], {"X": x, "N": n})
            self.assertEqual(t.tolist(), [["a", "d", "a", "d"], ["b", "e", "b", "e"], ["c", "f", "c", "f"]])

    def test_ops_that_move_elements_take_strings(self):
        # Each against onnxruntime: views, copies, gathers, splits and tiles of string tensors.
        def i64(name, values):
            return h.make_tensor(name, onnx.TensorProto.INT64, [len(values)], values)

        cases = [
            ([h.make_node("Reshape", ["x", "s"], ["y"])], [i64("s", [3, 2])]),
            ([h.make_node("Slice", ["x", "a", "b"], ["y"])], [i64("a", [1]), i64("b", [3])]),
            ([h.make_node("Expand", ["x", "s"], ["y"])], [i64("s", [2, 2, 3])]),
            ([h.make_node("Gather", ["x", "i"], ["y"], axis=1)], [i64("i", [2, 0, 2])]),
            ([h.make_node("Split", ["x"], ["y", "z"], axis=0, num_outputs=2)], []),
            ([h.make_node("Tile", ["x", "r"], ["y"])], [i64("r", [2, 1])]),
            ([h.make_node("Unsqueeze", ["x", "a"], ["y"])], [i64("a", [0])]),
        ]
        x = np.array([["a", "bb", ""], ["\u00e9", "c", "dd"]], dtype=object)
        for nodes, inits in cases:
            outs = nodes[0].output
            graph = h.make_graph(nodes, "g", [h.make_tensor_value_info("x", S, [2, 3])],
                                 [h.make_tensor_value_info(o, S, None) for o in outs], inits)
            model = h.make_model(graph, opset_imports=[h.make_opsetid("", 20)])
            model.ir_version = 9
            data = model.SerializeToString()
            got = geon.InferenceSession(data).run(None, {"x": x})
            want = onnxruntime.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, {"x": x})
            for g, w in zip(got, want):
                self.assertEqual(g.shape, w.shape, nodes[0].op_type)
                np.testing.assert_array_equal(g, w, err_msg=nodes[0].op_type)

    def test_elements_that_are_not_text_are_refused(self):
        x = np.array([["a", 1, "c"], ["d", "e", "f"]], dtype=object)
        with self.assertRaisesRegex(geon.GeonError, "input 'X'.*int"):
            self.ours.run(None, {"X": x, "N": np.zeros(3, np.float32)})


if __name__ == "__main__":
    unittest.main()
