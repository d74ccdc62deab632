"""The ONNX backend conformance tests (onnx.backend.test, onnx 1.22's data) through geon.backend,
for the ops the CPU kernel sets implement.

How the include list was chosen: every node, "simple" and PyTorch test of the data (1905, on
"_cpu"; the "real" model-zoo tests download their models and are not run) was run through
geon.backend (tests/python/list_backend_results.py prints that run); the op families
whose tests pass are included, as a pattern per family. Tests that fail because geon refuses
something on purpose (an op not in the kernel tables, string tensors, sequences, an opset form
without a kernel row) are not matched, or are listed in NOT_INCLUDED when a family pattern
would take them in. Tests that fail from a geon bug are run as expected failures (KNOWN_BUGS),
so that a fix shows up as an unexpected success and the entry must then be removed.
"_expanded" tests (an op's function body run in its place) are included wherever they pass,
also for ops geon has no kernel for: they test the kernels the body is made of.
"""

import re
import unittest

import numpy as np
import onnx
import onnx.backend.test
import onnx.helper

import _models
import _paths  # noqa: F401
import geon
import geon.backend

# Regular expressions, each matched against a whole test name without its "_cpu" suffix.
INCLUDE = [
    # elementwise, unary
    r"test_(abs|acos|acosh|asin|asinh|atan|atanh|ceil|cos|cosh|erf|exp|floor|log|neg|reciprocal"
    r"|relu|round|sigmoid|sign|sin|sinh|softplus|softsign|sqrt|tan|tanh)(_example)?",
    r"test_(elu|leakyrelu)(_default|_example)?",
    r"test_prelu_(broadcast|example)",
    r"test_isnan(_float16)?",
    r"test_isinf(_float16)?",
    # elementwise, binary and variadic
    r"test_(add|sub|mul|div|pow|mod)(_\w+)?",
    r"test_(equal|greater|less|greater_equal|less_equal)(_\w+)?",
    r"test_(and|or|xor)(\dd|_bcast\w+)",
    r"test_not_\dd",
    r"test_bitwise_(and|or|xor|not)_\w+",
    r"test_bitshift_\w+",
    r"test_(max|min|sum|mean)_\w+",
    r"test_where(_long)?_example",
    r"test_identity",
    r"test_(cast|castlike)_\w+",
    r"test_clip(_\w+)?",
    # reductions (ReduceL1, L2, LogSum, LogSumExp and SumSquare through their function bodies)
    r"test_reduce_(sum|mean|max|min|prod)_\w+",
    r"test_reduce_(l1|l2|log_sum|log_sum_exp|sum_square)_\w+_expanded",
    # views and data movement
    r"test_(reshape|transpose|flatten|squeeze|unsqueeze|expand|slice|concat)(_\w+)?",
    r"test_gather_(0|1|2d_indices|negative_indices)",
    r"test_scatternd(_\w+)?",
    # shapes
    r"test_shape(_\w+)?",
    r"test_size(_example)?",
    r"test_constantofshape_\w+",
    r"test_range_\w+",
    # MatMul and Gemm (cpu.dnnl)
    r"test_matmul_\w+",
    r"test_gemm_\w+",
    # activations with their own kernels, and the expansions of the elementwise ones
    r"test_(selu|celu|gelu|hardsigmoid|hardswish|mish|swish|thresholdedrelu|shrink)(_\w+)?",
    r"test_(elu|leakyrelu|prelu|relu|softplus|softsign)(_\w+)?_expanded(_ver18)?",
    # convolution (cpu.dnnl)
    r"test_(basic_conv_with(out)?_padding|conv_with_\w+|convtranspose(_\w+)?)",
    # pooling
    r"test_(averagepool|maxpool|lppool)_\w+",
    r"test_global(average|max)pool(_precomputed)?",
    r"test_maxunpool_export_with(out)?_output_shape",
    # normalizations and the softmax family
    r"test_(batchnorm|instancenorm)_\w+",
    r"test_(layer|group|rms)_normalization_\w+",
    r"test_lrn(_default)?",
    r"test_mvn(_expanded(_ver18)?)?",
    r"test_(lpnormalization_default|l1normalization_\w+|l2normalization_\w+)",
    r"test_(softmax|logsoftmax|log_softmax|hardmax)_\w+",
    # Split, Pad, Tile, Resize, Upsample, Dropout (inference, or training with ratio 0)
    r"test_split_(?!to_sequence)\w+",
    r"test_(constant|edge|reflect|wrap)_pad(_\w+)?",
    r"test_tile(_precomputed)?",
    r"test_resize_\w+",
    r"test_upsample_nearest",
    r"test_dropout_\w+",
    r"test_training_dropout_zero_ratio(_mask)?",
    # recurrent networks
    r"test_(lstm|gru|simple_rnn)_\w+",
    r"test_rnn_seq_length",
    # attention
    r"test_attention_\w+",
    r"test_rotary_embedding(_\w+)?",
    # ops without a kernel, run as their function bodies
    r"test_(blackman|hamming|hann)window(_symmetric)?_expanded",
    r"test_center_crop_pad_\w+_expanded",
    r"test_causal_conv_with_state_\w+_expanded",
    r"test_flexattention(_\w+)?_expanded_ver26",
    r"test_linear_attention_\w+_expanded",
    # strings end to end (numpy object arrays through the C ABI) and the ai.onnx.ml ops
    r"test_(equal_string|string_concat|string_split|regex_full_match|strnormalizer)\w*",
    r"test_(tfidfvectorizer|image_decoder)_\w+",
    r"test_ai_onnx_ml_(array_feature_extractor|binarizer|label_encoder_\w+|tree_ensemble_\w+)",
    # constants and optionals the importer computes
    r"test_constant",
    r"test_optional_has_element_empty_no_input(_name)?_(optional|tensor)_input",
    # control flow
    r"test_if",
    r"test_loop11",
    r"test_scan9_\w+",
    # whole small models: the "simple" and PyTorch-exported tests of the data
    r"test_(sign_model|single_relu_model)",
    r"test_(ELU|Embedding|Embedding_sparse|LeakyReLU|LeakyReLU_with_negval|Linear_no_bias|ReLU|Sigmoid"
    r"|Softplus|Tanh)",
    r"test_operator_(clip|concat2|exp|flatten|index|max|min|permute2|reduced_mean|reduced_mean_keepdim"
    r"|reduced_sum|reduced_sum_keepdim|sqrt|symbolic_override_nested|view)",
    r"test_(AvgPool|MaxPool)\dd(_\w+)?",
    r"test_(Conv\dd|ConvTranspose2d)(_\w+)?",
    r"test_BatchNorm\dd_\w+",
    r"test_(ConstantPad2d|ReflectionPad2d|ReplicationPad2d|ZeroPad2d|PixelShuffle|SELU|Softmax"
    r"|LogSoftmax|Softmin)",
    r"test_operator_(conv|convtranspose|maxpool|pad|chunk|repeat|repeat_dim_overflow|selu"
    r"|symbolic_override)",
    # opset 6 with the legacy broadcast / axis attributes (Add, Mul, Pow, PRelu, Gemm)
    r"test_(GLU|GLU_dim|Linear|PoissonNLLLLoss_no_reduce|Softsign)",
    r"test_PReLU_\dd(_multiparam)?",
    r"test_operator_(add_broadcast|add_size1_broadcast|add_size1_right_broadcast"
    r"|add_size1_singleton_broadcast|addconstant|addmm|basic|mm|non_float_params|params|pow)",
]

# Left out on purpose, within the families above: geon refuses these with a clear error.
NOT_INCLUDED = {
    r"test_pow_types_int(32|64)_float32": "Pow of an integer base by a float exponent is not implemented",
    r"test_reduce_sum_square_(?!.*expanded)\w+": "ReduceSumSquare has no kernel (its expanded form runs)",
    r"test_causal_conv_with_state_\w*fp16_expanded": "no Conv kernel for float16",
}

# Included tests that fail from a known geon bug, run as expected failures so that a fix shows
# up as an unexpected success. Empty: the one listed so far (Clip with min > max) is fixed.
KNOWN_BUGS = {}


def _included(stem):
    if any(re.fullmatch(p, stem) for p in NOT_INCLUDED):
        return False
    return any(re.fullmatch(p, stem) for p in INCLUDE)


def _selected_cases():
    """BackendTest's cases reduced to the included tests: the thousands of other tests are not
    registered at all (rather than reported as skipped)."""
    runner = onnx.backend.test.BackendTest(geon.backend, __name__)
    cases = {}
    for case_name, case in runner.test_cases.items():
        kept = {}
        for name in dir(case):
            stem = name[: -len("_cpu")]
            if name.startswith("test_") and name.endswith("_cpu") and _included(stem):
                function = getattr(case, name)
                kept[name] = unittest.expectedFailure(function) if stem in KNOWN_BUGS else function
        if kept:
            cases[case_name] = type(case_name, (unittest.TestCase,), kept)
    return cases


globals().update(_selected_cases())


class BackendInterface(unittest.TestCase):
    def test_run_node_wraps_one_node_in_a_model(self):
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        b = np.array([10, 20, 30], np.float32)
        node = onnx.helper.make_node("Add", ["a", "b"], ["c"])
        (c,) = geon.backend.run_node(node, [a, b])
        np.testing.assert_array_equal(c, a + b)
        (c,) = geon.backend.run_node(node, {"a": a, "b": b}, opset_version=13)
        np.testing.assert_array_equal(c, a + b)

    def test_prepared_model_takes_positional_named_and_single_inputs(self):
        rep = geon.backend.prepare(_models.mlp(seed=2), "CPU")
        x = np.random.default_rng(0).standard_normal((3, 16)).astype(np.float32)
        positional = rep.run([x])
        named = rep.run({"x": x})
        single = rep.run(x)
        self.assertEqual(len(positional), 2)
        for other in (named, single):
            for p, o in zip(positional, other):
                np.testing.assert_array_equal(p, o)
        np.testing.assert_array_equal(positional["y"], positional[0])
        with self.assertRaises(geon.GeonError):
            rep.run([x, x])

    def test_supports_cpu_and_refuses_unknown_devices(self):
        self.assertTrue(geon.backend.supports_device("CPU"))
        self.assertFalse(geon.backend.supports_device("FPGA"))
        self.assertIsInstance(geon.backend.supports_device("CUDA"), bool)

    def test_prepare_refuses_a_malformed_model(self):
        model = _models.mlp()
        model.graph.node[0].input[0] = "undefined_value"
        with self.assertRaises(Exception) as caught:
            geon.backend.prepare(model, "CPU")
        self.assertIn("undefined_value", str(caught.exception))


class IncludeListIsLive(unittest.TestCase):
    def test_every_include_pattern_selects_a_test(self):
        # A pattern that matches nothing (a renamed test, a typo) would silently test less.
        names = [n for case in _selected_cases().values() for n in dir(case) if n.startswith("test_")]
        for pattern in INCLUDE:
            with self.subTest(pattern=pattern):
                self.assertTrue(any(re.fullmatch(pattern, n[: -len("_cpu")]) for n in names))

    def test_every_known_bug_is_selected(self):
        names = {n for case in _selected_cases().values() for n in dir(case)}
        for stem in KNOWN_BUGS:
            self.assertIn(stem + "_cpu", names)


if __name__ == "__main__":
    unittest.main()
