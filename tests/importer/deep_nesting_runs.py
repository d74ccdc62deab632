"""Deep nesting end to end, through the provider: a model whose subgraphs alternate If and Loop
exactly at geon's documented limit (importer/nesting.h, kMaxSubgraphNesting) imports and runs,
with results checked against a plain-Python walk of the same nest; one level deeper is refused
with the depth found and the limit.

The models are built in place with protobuf's pure-Python implementation: the upb default
stops at 100 message levels, and this nest is about 200 deep.
usage: deep_nesting_runs.py LIMIT   (ctest passes the limit read from importer/nesting.h)
"""

import os
import sys

os.environ["PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION"] = "python"
sys.setrecursionlimit(20000)

import numpy as np  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402
import onnx  # noqa: E402

import geon  # noqa: E402


def _add_output(graph, name, elem=None, shape=None):
    graph.output.append(helper.make_tensor_value_info(name, elem or TensorProto.FLOAT, shape))


def nest(levels):
    """Level k's graph computes y_k = inner_k + x, where inner_k is an If (even k: then-branch
    is level k+1, else-branch x) or a one-trip Loop (odd k: body is level k+1, carrying x); the
    innermost graph passes x through."""
    model = helper.make_model(
        helper.make_graph([], "main", [
            helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
            helper.make_tensor_value_info("trips", TensorProto.INT64, []),
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
        ], []),
        opset_imports=[helper.make_opsetid("", 17)])
    g = model.graph
    for k in range(levels):
        s = str(k)
        if k % 2 == 0:
            node = g.node.add()
            node.CopyFrom(helper.make_node("If", ["cond"], ["inner" + s], name="if" + s))
            els = node.attribute.add()
            els.name, els.type = "else_branch", onnx.AttributeProto.GRAPH
            els.g.name = "else" + s
            els.g.node.append(helper.make_node("Identity", ["x"], ["e" + s]))
            _add_output(els.g, "e" + s)
            body = node.attribute.add()
            body.name, body.type = "then_branch", onnx.AttributeProto.GRAPH
            sub = body.g
        else:
            node = g.node.add()
            node.CopyFrom(helper.make_node("Loop", ["trips", "", "x"], ["inner" + s], name="loop" + s))
            body = node.attribute.add()
            body.name, body.type = "body", onnx.AttributeProto.GRAPH
            sub = body.g
            sub.input.extend([
                helper.make_tensor_value_info("i" + s, TensorProto.INT64, []),
                helper.make_tensor_value_info("c" + s, TensorProto.BOOL, []),
                helper.make_tensor_value_info("v" + s, TensorProto.FLOAT, [2]),
            ])
            sub.node.append(helper.make_node("Identity", ["c" + s], ["co" + s]))
            _add_output(sub, "co" + s, TensorProto.BOOL, [])
        g.node.append(helper.make_node("Add", ["inner" + s, "x"], ["y" + s]))
        _add_output(g, "y" + s, shape=[2] if k == 0 else None)
        sub.name = "level" + str(k + 1)
        g = sub
    g.node.append(helper.make_node("Identity", ["x"], ["leaf"]))
    _add_output(g, "leaf")
    return model


def reference(levels, cond, trips, x):
    """The nest walked from the inside out, as ONNX defines If and Loop."""
    value = x.copy()  # the innermost graph
    for k in reversed(range(levels)):
        if k % 2 == 0:
            inner = value if cond else x
        else:
            inner = value if trips > 0 else x  # a Loop of 0 trips returns its initial value
        value = inner + x
    return value


def main():
    limit = int(sys.argv[1])
    x = np.array([1.5, -2.0], np.float32)
    ok = True
    model = nest(limit).SerializeToString()
    session = geon.InferenceSession(model)
    for cond in (True, False):
        for trips in (1, 0):
            feed = {"cond": np.array(cond), "trips": np.array(trips, np.int64), "x": x}
            (got,) = session.run(None, feed)
            want = reference(limit, cond, trips, x)
            same = np.array_equal(got, want)
            ok = ok and same
            print("nest of %d, cond=%s trips=%d: %s (want %s) %s"
                  % (limit, cond, trips, got, want, "ok" if same else "MISMATCH"))
    try:
        geon.InferenceSession(nest(limit + 1).SerializeToString())
        print("nest of %d: imported, but it is over the limit" % (limit + 1))
        ok = False
    except geon.GeonError as e:
        msg = str(e)
        said = ("nested %d levels deep" % (limit + 1)) in msg and ("limit of %d" % limit) in msg
        print("nest of %d refused: %s %s" % (limit + 1, msg, "ok" if said else "WRONG MESSAGE"))
        ok = ok and said
    if not ok:
        sys.exit(1)
    print("deep nesting ok")


if __name__ == "__main__":
    main()
