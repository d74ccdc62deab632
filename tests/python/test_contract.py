"""geon.Model / Capability: the provider contract from Python. A host (this test, with numpy)
runs the nodes geon does not claim and geon's compiled subgraphs run the rest; the whole must
equal the model run by one session."""

import unittest

import numpy as np
import onnx.numpy_helper

import _models
import _paths  # noqa: F401
import geon


def _host_run(op, inputs):
    """The unclaimed ops of the MLP, done by the host."""
    if op == "Add":
        return inputs[0] + inputs[1]
    if op == "Relu":
        return np.maximum(inputs[0], np.float32(0))
    raise AssertionError("the host has no %s" % op)


class Contract(unittest.TestCase):
    def setUp(self):
        self.onnx_model = _models.mlp(seed=21)
        self.model = geon.Model(self.onnx_model.SerializeToString())

    def test_nodes_are_listed_in_topological_order(self):
        self.assertEqual(
            self.model.nodes,
            [("fc1", "MatMul"), ("fc1_bias", "Add"), ("relu", "Relu"), ("fc2", "MatMul"), ("fc2_bias", "Add")],
        )

    def test_capability_on_cpu_dnnl_claims_the_matmuls_and_says_why_not_the_rest(self):
        capability = self.model.capability(["cpu.dnnl"])
        self.assertEqual([s.kernel_set for s in capability.subgraphs], ["cpu.dnnl", "cpu.dnnl"])
        self.assertEqual([s.nodes for s in capability.subgraphs], [[0], [3]])
        self.assertEqual(capability.node_subgraph, [0, None, None, 1, None])
        for node, reason in zip(self.model.nodes, capability.node_reason):
            if node[1] == "MatMul":
                self.assertEqual(reason, "")
            else:
                self.assertIn(node[1], reason)

    def test_host_and_compiled_subgraphs_together_equal_one_session(self):
        capability = self.model.capability(["cpu.dnnl"])
        x = np.random.default_rng(5).standard_normal((3, 16)).astype(np.float32)
        values = {"x": x}
        values.update({t.name: onnx.numpy_helper.to_array(t) for t in self.onnx_model.graph.initializer})
        compiled = {}
        for index, node in enumerate(self.onnx_model.graph.node):
            claimed = capability.node_subgraph[index]
            if claimed is None:
                values[node.output[0]] = _host_run(node.op_type, [values[n] for n in node.input])
                continue
            subgraph = capability.subgraphs[claimed]
            if subgraph.nodes[0] != index:
                continue  # the subgraph ran at its first node
            session = compiled.setdefault(claimed, capability.compile(claimed))
            feed = {i.name: values[i.name] for i in session.get_inputs() if i.name in values}
            names = [o.name for o in session.get_outputs()]
            values.update(zip(names, session.run(names, feed)))
        want = geon.InferenceSession(self.onnx_model).run(["y", "hidden"], {"x": x})
        np.testing.assert_allclose(values["y"], want[0], rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(values["hidden"], want[1], rtol=1e-6, atol=1e-7)

    def test_compile_refuses_a_subgraph_index_out_of_range(self):
        capability = self.model.capability(["cpu.dnnl"])
        with self.assertRaises(geon.GeonError) as caught:
            capability.compile(len(capability.subgraphs))
        self.assertEqual(caught.exception.code_name, "INVALID_ARGUMENT")

    def test_default_providers_claim_every_node(self):
        capability = self.model.capability()
        self.assertNotIn(None, capability.node_subgraph)
        self.assertEqual(capability.node_reason, [""] * len(self.model.nodes))

    def test_bad_model_bytes_raise(self):
        with self.assertRaises(geon.GeonError):
            geon.Model(b"\x08\x07not a model")


if __name__ == "__main__":
    unittest.main()
