"""Analysis-time checks of encoder_pte: bad attributes fail with a clear message (LLM-only attributes: analysis_tests.bzl)."""

load("//rag:defs.bzl", "encoder_pte")
load("//tools/testing:expect_failure.bzl", "expect_failure_cases")

# name -> (encoder_pte attributes, expected substring of the error)
_CASES = {
    "encoder_llm_quantize": (
        {"quantize": "8da4w", "backend": "xnnpack"},
        "quantize \"8da4w\" is not available for a sentence_encoder",
    ),
    "encoder_int8_on_portable": (
        {"quantize": "8da8w", "backend": "portable"},
        "quantize = \"8da8w\" needs backend = \"xnnpack\"",
    ),
    "encoder_too_long": (
        {"backend": "xnnpack", "max_seq_len": 1024},
        "max_seq_len = 1024 must be in 2..512",
    ),
}

def encoder_pte_analysis_test_suite(name, model):
    """One expect-failure analysis test per bad-attribute case in _CASES.

    Args:
      name: name of the test_suite that groups the cases.
      model: sentence_encoder label the subjects export (never built).
    """
    native.test_suite(name = name, tests = expect_failure_cases(encoder_pte, _CASES, model = model))
