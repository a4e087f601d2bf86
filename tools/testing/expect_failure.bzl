"""expect_failure_test: an analysis test that passes when its target fails analysis with a given message.

    my_rule(name = "bad_subject", tags = ["manual"], ...)
    expect_failure_test(
        name = "bad_test",
        target_under_test = ":bad_subject",
        message = "the text the rule's fail() must contain",
    )
"""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")

def _expect_failure_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, ctx.attr.message)
    return analysistest.end(env)

expect_failure_test = analysistest.make(
    _expect_failure_impl,
    expect_failure = True,
    attrs = {"message": attr.string(mandatory = True, doc = "A substring of the expected error.")},
)
