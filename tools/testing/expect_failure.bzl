"""expect_failure_test: an analysis test that passes when its target fails analysis with a given message.

    my_rule(name = "bad_subject", tags = ["manual"], ...)
    expect_failure_test(
        name = "bad_test",
        target_under_test = ":bad_subject",
        message = "the text the rule's fail() must contain",
    )

expect_failure_cases makes one such pair per entry of a table of bad
attributes.
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

def expect_failure_cases(rule, cases, **common):
    """One expect_failure_test per bad-attribute case of a rule.

        tests = expect_failure_cases(executorch_pte, {
            "bad_backend": ({"backend": "gpu"}, "backend"),
        }, model = ":tiny")

    Args:
      rule: the rule (or macro) under test.
      cases: name -> (attributes, a substring of the expected error). Each
        case makes `<name>_subject` (manual, never built) with `common` and
        its attributes, and `<name>_test`.
      **common: attributes every subject gets.
    Returns:
      The tests' labels, for a test_suite.
    """
    tests = []
    for case, (attrs, message) in cases.items():
        rule(
            name = case + "_subject",
            tags = ["manual"],
            **dict(common, **attrs)
        )
        expect_failure_test(
            name = case + "_test",
            target_under_test = ":" + case + "_subject",
            message = message,
        )
        tests.append(":" + case + "_test")
    return tests
