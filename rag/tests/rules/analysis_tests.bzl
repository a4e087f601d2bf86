"""Analysis-time checks of rag_index: an embedder that is not a sentence encoder fails with a clear message."""

load("//rag:defs.bzl", "rag_index")
load("//tools/testing:expect_failure.bzl", "expect_failure_test")

def rag_index_analysis_test_suite(name):
    """An LLM program given as the embedder.

    Args:
      name: name of the test_suite.
    """
    rag_index(
        name = name + "_llm_embedder_subject",
        docs = ["//corpora:persuasion"],
        embedder = "//models:tiny_int4",
        vocab = "//models:minilm_l6_vocab",
        tags = ["manual"],
    )
    expect_failure_test(
        name = name + "_llm_embedder_test",
        target_under_test = ":" + name + "_llm_embedder_subject",
        message = "is an llm program; give an executorch_pte of a sentence_encoder",
    )
    native.test_suite(name = name, tests = [":" + name + "_llm_embedder_test"])
