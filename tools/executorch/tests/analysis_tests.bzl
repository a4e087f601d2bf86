"""Analysis-time checks of executorch_pte: bad attributes fail with a clear message."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("//tools/executorch:defs.bzl", "executorch_pte")

def _expect_failure_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, ctx.attr.message)
    return analysistest.end(env)

_expect_failure_test = analysistest.make(
    _expect_failure_impl,
    expect_failure = True,
    attrs = {"message": attr.string(mandatory = True)},
)

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
    "int4_weight_only_on_portable": (
        {"quantize": "int4_weight_only", "group_size": 32, "backend": "portable"},
        "int4_weight_only does not lower correctly to \"portable\"",
    ),
    "int4_weight_only_on_xnnpack": (
        {"quantize": "int4_weight_only", "group_size": 32, "backend": "xnnpack"},
        "use quantize = \"8da4w\"",
    ),
    "qnn_unknown_soc": (
        {"backend": "qnn", "soc": "SM9999", "quantize": "16a4w", "calibration": "//models:tiny_calibration"},
        "unknown soc \"SM9999\"; ExecuTorch's QNN backend knows [",
    ),
    "qnn_with_xnnpack_quantize": (
        {"backend": "qnn", "soc": "SM8650", "quantize": "8da4w", "calibration": "//models:tiny_calibration"},
        "backend \"qnn\" quantizes with QnnQuantizer; set quantize to one of [\"16a4w\", \"16a4w_block\", \"16a8w\", \"8a8w\"]",
    ),
    "qnn_without_calibration": (
        {"backend": "qnn", "soc": "SM8650", "quantize": "16a4w"},
        "backend \"qnn\" needs calibration = a calibration_set target",
    ),
    "soc_on_xnnpack": (
        {"backend": "xnnpack", "soc": "SM8650"},
        "soc/calibration are for backend \"qnn\"",
    ),
}

def executorch_pte_analysis_test_suite(name, model):
    """One expect-failure analysis test per bad-attribute case in _CASES.

    Args:
      name: name of the test_suite that groups the cases.
      model: llm_checkpoint label the subjects export (never built).
    """
    tests = []
    for case, (attrs, message) in _CASES.items():
        executorch_pte(
            name = case + "_subject",
            model = model,
            tags = ["manual"],
            **attrs
        )
        _expect_failure_test(
            name = case + "_test",
            target_under_test = ":" + case + "_subject",
            message = message,
        )
        tests.append(":" + case + "_test")
    native.test_suite(name = name, tests = tests)
