"""Checks of executorch_pte: bad attributes fail with a clear message.

Bad values fail the target at analysis (the analysis tests below). An
attribute of another family of programs (soc on XNNPACK, hqq on QNN, a
group size on an encoder) fails at loading, in the macro, with the message
misplaced_attrs_error builds; its unit tests, and the recipes', are at the end.
"""

load("@bazel_skylib//lib:unittest.bzl", "asserts", "unittest")
load("//tools/executorch:defs.bzl", "executorch_pte")
load("//tools/executorch/private:pte_common.bzl", "misplaced_attrs_error")
load("//tools/executorch/private:recipes.bzl", "RECIPES", "expand_recipe")
load("//tools/testing:expect_failure.bzl", "expect_failure_cases", "expect_failure_test")

# name -> (executorch_pte attributes, expected substring of the error)
_CASES = {
    "head_quantize_without_asym": (
        {"backend": "xnnpack", "group_size": 32, "head_quantize": "8da8w", "quantize": "8da4w"},
        "head_quantize needs quantize = \"8da4w_asym\"",
    ),
    "unknown_head_quantize": (
        {"backend": "xnnpack", "group_size": 32, "head_quantize": "int3", "quantize": "8da4w_asym"},
        "unknown head_quantize \"int3\"",
    ),
    "asym_on_portable": (
        {"backend": "portable", "group_size": 32, "quantize": "8da4w_asym"},
        "runs on XNNPACK",
    ),
    "unknown_quantize": (
        {"quantize": "int3"},
        "unknown quantize \"int3\"; choose one of",
    ),
    "unknown_backend": (
        {"backend": "tpu"},
        "unknown backend \"tpu\"; choose one of",
    ),
    "context_shorter_than_seq": (
        {"max_seq_len": 128, "max_context_len": 64},
        "max_context_len (64) < max_seq_len (128)",
    ),
    "group_size_not_offered": (
        {"quantize": "8da4w", "group_size": 48},
        "needs group_size in [32, 64, 128], got 48",
    ),
    "group_size_without_quantize": (
        {"group_size": 32},
        "group_size/embedding_quantize need a quantize mode",
    ),
    "logit_rows_without_asym": (
        {"backend": "xnnpack", "group_size": 32, "quantize": "8da4w", "logit_rows": 8},
        "logit_rows needs recipe = \"int4\"",
    ),
    "logit_rows_above_seq_len": (
        {"backend": "xnnpack", "group_size": 32, "quantize": "8da4w_asym", "max_seq_len": 4, "logit_rows": 8},
        "logit_rows = 8 must be in 1..max_seq_len (4)",
    ),
    "int4_weight_only_on_portable": (
        {"quantize": "int4_weight_only", "group_size": 32, "backend": "portable"},
        "int4_weight_only does not lower correctly to \"portable\"",
    ),
    "int4_weight_only_on_xnnpack": (
        {"quantize": "int4_weight_only", "group_size": 32, "backend": "xnnpack"},
        "use recipe = \"int4\"",
    ),
    "qnn_unknown_soc": (
        {"backend": "qnn", "soc": "SM9999", "quantize": "16a4w", "calibration": "//models:tiny_calibration"},
        "unknown soc \"SM9999\"; ExecuTorch's QNN backend knows [",
    ),
    "qnn_with_xnnpack_quantize": (
        {"backend": "qnn", "soc": "SM8650", "quantize": "8da4w", "calibration": "//models:tiny_calibration"},
        "backend \"qnn\" quantizes with QnnQuantizer; set quantize to one of [\"16a4w\", \"16a4w_block\", \"16a4w_block_asym\", \"16a8w\", \"8a8w\"]",
    ),
    "qnn_without_calibration": (
        {"backend": "qnn", "soc": "SM8650", "quantize": "16a4w"},
        "backend \"qnn\" needs calibration = a calibration_set target",
    ),
    "qnn_prefill_length_one": (
        {"backend": "qnn", "soc": "SM8650", "quantize": "16a4w", "calibration": "//models:tiny_calibration", "prefill_length": 1},
        "prefill_length = 1 must be 0 (no prefill method) or in 2..2047 (below max_context_len)",
    ),
    "qnn_prefill_length_past_context": (
        {"backend": "qnn", "soc": "SM8650", "quantize": "16a4w", "calibration": "//models:tiny_calibration", "max_context_len": 128, "prefill_length": 128},
        "prefill_length = 128 must be 0 (no prefill method) or in 2..127 (below max_context_len)",
    ),
    "outlier_channels_without_asym": (
        {"backend": "xnnpack", "group_size": 32, "quantize": "8da4w", "outlier_channels": 8, "calibration": "//models:tiny_calibration"},
        "outlier_channels needs quantize = \"8da4w_asym\"",
    ),
    "negative_outlier_channels": (
        {"backend": "xnnpack", "group_size": 32, "quantize": "8da4w_asym", "outlier_channels": -1},
        "outlier_channels = -1 must be 0 (none) or more",
    ),
    "calibration_without_outlier_channels": (
        {"backend": "xnnpack", "group_size": 32, "quantize": "8da4w_asym", "calibration": "//models:tiny_calibration"},
        "calibration is used only with outlier_channels on this backend",
    ),
}

def _misplaced_attrs_test_impl(ctx):
    env = unittest.begin(ctx)
    asserts.equals(
        env,
        "executorch_pte p: soc/qnn_sdk are for backend \"qnn\"; drop them or set backend = \"qnn\"",
        misplaced_attrs_error("executorch_pte", "p", "xnnpack", {"model": ":m", "soc": "SM8650", "qnn_sdk": ":s", "calibration": ":c", "quantize": "8da4w"}),
    )
    asserts.equals(
        env,
        "executorch_pte p: prefill_length/weight_sharing are for backend \"qnn\"; drop them or set backend = \"qnn\"",
        misplaced_attrs_error("executorch_pte", "p", "xnnpack", {"model": ":m", "prefill_length": 32, "weight_sharing": False}),
    )
    asserts.equals(
        env,
        "executorch_pte p: hqq are XNNPACK/portable options; drop them for backend \"qnn\"",
        misplaced_attrs_error("executorch_pte", "p", "qnn", {"model": ":m", "hqq": True, "soc": "SM8650"}),
    )
    asserts.equals(
        env,
        "executorch_pte p: outlier_channels are XNNPACK/portable options; drop them for backend \"qnn\"",
        misplaced_attrs_error("executorch_pte", "p", "qnn", {"model": ":m", "outlier_channels": 8, "soc": "SM8650"}),
    )
    asserts.equals(
        env,
        "encoder_pte p: group_size are LLM settings; drop them for a sentence_encoder (its 8da8w is per-channel)",
        misplaced_attrs_error("encoder_pte", "p", "xnnpack", {"model": ":e", "group_size": 32}),
    )
    asserts.equals(
        env,
        "executorch_pte p: model is missing; set model = the llm_checkpoint to export, for example model = \":my_model\"",
        misplaced_attrs_error("executorch_pte", "p", "xnnpack", {"quantize": "8da4w"}),
    )
    asserts.equals(
        env,
        "encoder_pte p: model is missing; set model = the sentence_encoder to export, for example model = \":my_model\"",
        misplaced_attrs_error("encoder_pte", "p", "xnnpack", {}),
    )
    for rule, backend, attrs in [
        ("executorch_pte", "xnnpack", {"model": ":m", "quantize": "8da4w", "group_size": 32, "hqq": True}),
        ("executorch_pte", "qnn", {"model": ":m", "soc": "SM8650", "calibration": ":c", "group_size": 32}),
        ("encoder_pte", "xnnpack", {"model": ":e", "quantize": "8da8w", "max_seq_len": 256}),
    ]:
        asserts.equals(env, "", misplaced_attrs_error(rule, "p", backend, attrs), "{} {}".format(rule, attrs))
    return unittest.end(env)

_misplaced_attrs_test = unittest.make(_misplaced_attrs_test_impl)

def _recipe_test_impl(ctx):
    env = unittest.begin(ctx)

    # llama_int4's attributes written out: what the recipe stands for.
    attrs, error = expand_recipe("executorch_pte", "p", "int4", {"model": ":m", "max_context_len": 2048})
    asserts.equals(env, "", error)
    asserts.equals(env, {
        "backend": "xnnpack",
        "embedding_quantize": "8,32",
        "group_size": 32,
        "head_quantize": "8da8w",
        "logit_rows": 8,
        "max_context_len": 2048,
        "model": ":m",
        "outlier_channels": 8,
        "quantize": "8da4w_asym",
    }, attrs)
    attrs, error = expand_recipe("executorch_pte", "p", "int4_qnn", {"model": ":m", "soc": "SM8650"})
    asserts.equals(env, {"backend": "qnn", "group_size": 32, "model": ":m", "quantize": "16a4w_block_asym", "soc": "SM8650"}, attrs)
    _, error = expand_recipe("executorch_pte", "p", "int5", {"model": ":m"})
    asserts.equals(env, "executorch_pte p: unknown recipe \"int5\"; choose one of {} (docs/rules_reference.md#recipes)".format(sorted(RECIPES.keys())), error)
    _, error = expand_recipe("executorch_pte", "p", "int4", {"model": ":m", "quantize": "8da4w", "group_size": 64})
    asserts.equals(env, "executorch_pte p: recipe = \"int4\" already sets group_size, quantize; drop them or drop the recipe and set every attribute yourself", error)
    for name, recipe in RECIPES.items():
        asserts.true(env, recipe["doc"], "recipe {} has no doc".format(name))
        asserts.true(env, "backend" in recipe["attrs"], "recipe {} leaves the backend to chance".format(name))
    return unittest.end(env)

_recipe_test = unittest.make(_recipe_test_impl)

def executorch_pte_analysis_test_suite(name, model, encoder):
    """One expect-failure analysis test per bad-attribute case in _CASES, and the misplaced-attribute unit test.

    Args:
      name: name of the test_suite that groups the cases.
      model: llm_checkpoint label the subjects export (never built).
      encoder: a sentence_encoder, given to executorch_pte by mistake.
    """
    _misplaced_attrs_test(name = name + "_misplaced_attrs_test")
    _recipe_test(name = name + "_recipe_test")
    tests = [":" + name + "_misplaced_attrs_test", ":" + name + "_recipe_test"]
    executorch_pte(
        name = "encoder_model_subject",
        model = encoder,
        backend = "xnnpack",
        tags = ["manual"],
    )
    expect_failure_test(
        name = "encoder_model_test",
        target_under_test = ":encoder_model_subject",
        message = "is a sentence_encoder; export it with encoder_pte",
    )
    tests.append(":encoder_model_test")
    tests += expect_failure_cases(executorch_pte, _CASES, model = model)
    native.test_suite(name = name, tests = tests)
