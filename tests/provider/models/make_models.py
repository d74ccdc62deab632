"""Writes the small ONNX models the provider tests load. Weights follow closed formulas (stated
next to each), which the C++ tests reproduce to compute their references. Run from this
folder: python3 make_models.py"""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = [helper.make_opsetid("", 17)]


def save(graph, name):
    model = helper.make_model(graph, opset_imports=OPSET, producer_name="geon-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, name)


def mlp_weights():
    # W1[i][j] = ((16 i + j) mod 7 - 3) / 8, B1[j] = j / 20 - 0.4,
    # W2[i][j] = ((3 i + j) mod 5 - 2) / 4,  B2[j] = j / 10   (float32, rounded once)
    w1 = np.array([[((16 * i + j) % 7 - 3) / 8 for j in range(16)] for i in range(4)], np.float32)
    b1 = np.array([j / 20 - 0.4 for j in range(16)], np.float32)
    w2 = np.array([[((3 * i + j) % 5 - 2) / 4 for j in range(3)] for i in range(16)], np.float32)
    b2 = np.array([j / 10 for j in range(3)], np.float32)
    return w1, b1, w2, b2


def mlp():
    # Y = relu(X W1 + B1) W2 + B2, X: [batch, 4], Y: [batch, 3]
    w1, b1, w2, b2 = mlp_weights()
    nodes = [
        helper.make_node("MatMul", ["X", "W1"], ["h1"], name="mm1"),
        helper.make_node("Add", ["h1", "B1"], ["h2"], name="add1"),
        helper.make_node("Relu", ["h2"], ["h3"], name="relu1"),
        helper.make_node("MatMul", ["h3", "W2"], ["h4"], name="mm2"),
        helper.make_node("Add", ["h4", "B2"], ["Y"], name="add2"),
    ]
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["batch", 3])],
        [numpy_helper.from_array(a, n) for a, n in zip((w1, b1, w2, b2), ("W1", "B1", "W2", "B2"))])
    save(graph, "mlp.onnx")


def defaults():
    # Y = X * scale, Z = X + scale; scale is an input with a default (initializer) [2, 3].
    nodes = [
        helper.make_node("Mul", ["X", "scale"], ["Y"], name="mul"),
        helper.make_node("Add", ["X", "scale"], ["Z"], name="add"),
    ]
    graph = helper.make_graph(
        nodes, "defaults",
        [helper.make_tensor_value_info("scale", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("X", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("Z", TensorProto.FLOAT, [2])],
        [numpy_helper.from_array(np.array([2, 3], np.float32), "scale")])
    save(graph, "defaults.onnx")


def unclaimed():
    # s = X X, g = Det(s): oneDNN's set has no Det, so with devices = "cpu.dnnl" no kernel set
    # claims node 1 (cpu.generic runs Det; tests that want an unclaimed node leave it out).
    nodes = [
        helper.make_node("MatMul", ["X", "X"], ["s"], name="square"),
        helper.make_node("Det", ["s"], ["g"], name="det"),
    ]
    graph = helper.make_graph(
        nodes, "unclaimed",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [3, 3])],
        [helper.make_tensor_value_info("s", TensorProto.FLOAT, [3, 3]),
         helper.make_tensor_value_info("g", TensorProto.FLOAT, [])])
    model = helper.make_model(graph, opset_imports=OPSET, producer_name="geon-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, "unclaimed.onnx")


def scalars():
    # c = a * b on rank-0 tensors.
    graph = helper.make_graph(
        [helper.make_node("Mul", ["a", "b"], ["c"], name="mul")], "scalars",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, []),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [])],
        [helper.make_tensor_value_info("c", TensorProto.FLOAT, [])])
    save(graph, "scalars.onnx")


def external():
    # Y = X + W with W = [1, 2, 3, 4] stored in external_weights.bin next to the model.
    w = numpy_helper.from_array(np.array([1, 2, 3, 4], np.float32), "W")
    graph = helper.make_graph(
        [helper.make_node("Add", ["X", "W"], ["Y"], name="add")], "external",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [4])], [w])
    model = helper.make_model(graph, opset_imports=OPSET, producer_name="geon-tests")
    model.ir_version = 8
    onnx.external_data_helper.convert_model_to_external_data(
        model, all_tensors_to_one_file=True, location="external_weights.bin", size_threshold=0)
    onnx.save(model, "external.onnx")


def strings():
    # Strings through the C ABI: C = StringConcat(X, S) with the constant S = ["-a", "-b", "-c"],
    # Y = Transpose(C), Z = Cast(N, to=string), E = Equal(X, S), I = Identity(X).
    s = helper.make_tensor("S", TensorProto.STRING, [3], [b"-a", b"-b", b"-c"])
    nodes = [
        helper.make_node("StringConcat", ["X", "S"], ["C"], name="concat"),
        helper.make_node("Transpose", ["C"], ["Y"], name="transpose", perm=[1, 0]),
        helper.make_node("Cast", ["N"], ["Z"], name="cast", to=TensorProto.STRING),
        helper.make_node("Equal", ["X", "S"], ["E"], name="equal"),
        helper.make_node("Identity", ["X"], ["I"], name="identity"),
    ]
    graph = helper.make_graph(
        nodes, "strings",
        [helper.make_tensor_value_info("X", TensorProto.STRING, [2, 3]),
         helper.make_tensor_value_info("N", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("Y", TensorProto.STRING, [3, 2]),
         helper.make_tensor_value_info("Z", TensorProto.STRING, [3]),
         helper.make_tensor_value_info("E", TensorProto.BOOL, [2, 3]),
         helper.make_tensor_value_info("I", TensorProto.STRING, [2, 3])], [s])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)],
                              producer_name="geon-tests")
    model.ir_version = 9
    onnx.checker.check_model(model)
    onnx.save(model, "strings.onnx")


def values():
    # Sequences and optionals through the C ABI (run_values): X = SequenceAt(S, I),
    # T = SequenceInsert(S, X) (a sequence output), H = OptionalHasElement(O), P = Identity(O)
    # (an optional output). S: seq(float), O: optional(tensor(float)).
    seq = helper.make_tensor_sequence_value_info
    opt = helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, ["m"]))
    nodes = [
        helper.make_node("SequenceAt", ["S", "I"], ["X"]),
        helper.make_node("SequenceInsert", ["S", "X"], ["T"]),
        helper.make_node("OptionalHasElement", ["O"], ["H"]),
        helper.make_node("Identity", ["O"], ["P"]),
    ]
    graph = helper.make_graph(
        nodes, "values",
        [seq("S", TensorProto.FLOAT, ["n"]), helper.make_tensor_value_info("I", TensorProto.INT64, []),
         helper.make_value_info("O", opt)],
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["n"]), seq("T", TensorProto.FLOAT, ["n"]),
         helper.make_tensor_value_info("H", TensorProto.BOOL, []), helper.make_value_info("P", opt)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)],
                              producer_name="geon-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, "values.onnx")


def maps():
    # Maps through the C ABI (API version 4): M: map(int64, float) and Q: seq(map(string, float))
    # come back as they went in, and V = DictVectorizer(M) over the vocabulary 1, 2, 3, 5.
    m_type = helper.make_map_type_proto(TensorProto.INT64, helper.make_tensor_type_proto(TensorProto.FLOAT, []))
    q_type = helper.make_sequence_type_proto(
        helper.make_map_type_proto(TensorProto.STRING, helper.make_tensor_type_proto(TensorProto.FLOAT, [])))
    nodes = [helper.make_node("DictVectorizer", ["M"], ["V"], domain="ai.onnx.ml", int64_vocabulary=[1, 2, 3, 5])]
    graph = helper.make_graph(
        nodes, "maps", [helper.make_value_info("M", m_type), helper.make_value_info("Q", q_type)],
        [helper.make_value_info("M", m_type), helper.make_value_info("Q", q_type),
         helper.make_tensor_value_info("V", TensorProto.FLOAT, [1, 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("ai.onnx.ml", 3)],
                              producer_name="geon-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, "maps.onnx")


if __name__ == "__main__":
    mlp()
    defaults()
    unclaimed()
    scalars()
    external()
    strings()
    values()
    maps()
