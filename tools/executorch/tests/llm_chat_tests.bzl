"""What llm_chat registers for a draft: the vocabulary check where the two
programs read different tokenizer files, none where they read one, and an
analysis error for a draft that llm_main cannot run.

The check's own verdicts (same ids pass, another tokenizer fails naming the
first id) are tested on the tool, //tokenizer/compare:same_vocabulary_test.
"""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("//tools/executorch:defs.bzl", "llm_chat")
load("//tools/testing:expect_failure.bzl", "expect_failure_test")

def _draft_check_test_impl(ctx):
    env = analysistest.begin(ctx)
    target = analysistest.target_under_test(env)
    actions = [a for a in analysistest.target_actions(env) if a.mnemonic == "SameVocabulary"]
    asserts.equals(env, ctx.attr.checks, len(actions), "SameVocabulary actions of {}".format(target.label))
    outputs = sorted([f.basename for f in target[DefaultInfo].files.to_list()])
    expected = [target.label.name + ".sh"]
    if ctx.attr.checks:
        expected.append(target.label.name + ".same_vocabulary")
        inputs = sorted([f.short_path for f in actions[0].inputs.to_list() if f.basename == "tokenizer.json"])
        asserts.equals(env, sorted(ctx.attr.tokenizers), inputs, "the tokenizers compared")
    asserts.equals(env, sorted(expected), outputs, "DefaultInfo.files")
    return analysistest.end(env)

_draft_check_test = analysistest.make(
    _draft_check_test_impl,
    attrs = {
        "checks": attr.int(mandatory = True, doc = "How many SameVocabulary actions the target registers."),
        "tokenizers": attr.string_list(doc = "The short paths of the tokenizer.json files compared."),
    },
)

def llm_chat_test_suite(name):
    """The draft cases of llm_chat, over real //models programs (analysed, never built here).

    Args:
      name: name of the test_suite that groups them.
    """
    llm_chat(
        name = "other_tokenizer_draft_subject",
        program = "//models:tiny_int4",
        draft = "//models:llama3_tiny_int4",
        tokenizer = "//models:tiny_int4_chat_tok",
        tags = ["manual"],
    )
    _draft_check_test(
        name = name + "_other_tokenizer",
        target_under_test = ":other_tokenizer_draft_subject",
        checks = 1,
        tokenizers = ["models/llama3_tiny/tokenizer.json", "models/tiny_random/tokenizer.json"],
    )
    _draft_check_test(
        name = name + "_two_tokenizer_files",
        target_under_test = "//models:llama_int4_drafted_chat",
        checks = 1,
        tokenizers = ["models/smollm2_135m/tokenizer.json", "models/tiny_random/tokenizer.json"],
    )
    _draft_check_test(
        name = name + "_one_tokenizer_file",
        target_under_test = "//models:tiny_int4_drafted_chat",
        checks = 0,
    )
    llm_chat(
        name = "qnn_draft_subject",
        program = "//models:tiny_int4",
        draft = "//models:tiny_qnn",
        tokenizer = "//models:tiny_int4_chat_tok",
        tags = ["manual"],
    )
    expect_failure_test(
        name = name + "_qnn_draft",
        target_under_test = ":qnn_draft_subject",
        message = "tiny_qnn is a llm program on qnn; llm_main runs language models on the CPU",
    )
    native.test_suite(name = name, tests = [
        ":" + name + "_other_tokenizer",
        ":" + name + "_two_tokenizer_files",
        ":" + name + "_one_tokenizer_file",
        ":" + name + "_qnn_draft",
    ])
