"""Analysis-time checks of rag_index: an embedder that is not a sentence
encoder fails with a clear message, and the chunks are counted with the
embedder's own tokenizer and sized by its manifest."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("//rag:defs.bzl", "rag_index")
load("//tools/executorch:defs.bzl", "PteInfo")
load("//tools/testing:expect_failure.bzl", "expect_failure_test")

def _flag_value(argv, flag):
    for i, arg in enumerate(argv):
        if arg == flag and i + 1 < len(argv):
            return argv[i + 1]
    return None

def _takes_from_embedder_test_impl(ctx):
    env = analysistest.begin(ctx)
    embedder = ctx.attr.embedder[PteInfo]
    actions = {a.mnemonic: a for a in analysistest.target_actions(env)}
    asserts.equals(env, embedder.tokenizer.path, _flag_value(actions["RagChunk"].argv, "--tokenizer"))
    asserts.equals(env, embedder.manifest.path, _flag_value(actions["RagIndex"].argv, "--embedder_manifest"))
    return analysistest.end(env)

_takes_from_embedder_test = analysistest.make(
    _takes_from_embedder_test_impl,
    attrs = {"embedder": attr.label(providers = [PteInfo])},
)

def _subject(name, embedder):
    rag_index(
        name = name,
        docs = ["//corpora:persuasion"],
        embedder = embedder,
        vocab = "//models:minilm_l6_vocab",
        tags = ["manual"],
    )

def rag_index_analysis_test_suite(name):
    """An LLM program given as the embedder, and what a right one provides.

    Args:
      name: name of the test_suite.
    """
    _subject(name + "_llm_embedder_subject", "//models:tiny_int4")
    expect_failure_test(
        name = name + "_llm_embedder_test",
        target_under_test = ":" + name + "_llm_embedder_subject",
        message = "is an llm program; give an executorch_pte of a sentence_encoder",
    )
    _subject(name + "_embedder_subject", "//models:minilm_l6_int8")
    _takes_from_embedder_test(
        name = name + "_takes_from_embedder_test",
        target_under_test = ":" + name + "_embedder_subject",
        embedder = "//models:minilm_l6_int8",
    )
    native.test_suite(name = name, tests = [
        ":" + name + "_llm_embedder_test",
        ":" + name + "_takes_from_embedder_test",
    ])
