"""What executorch_pte returns: PteInfo's fields for each kind of program.

Each case names a real target of //models (analysed, never built here) and
the PteInfo fields it must provide, so a rule change that alters what
downstream rules see (rag_index, the bench, users' own rules) fails here.
"""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("//tools/executorch:defs.bzl", "PteInfo")

def _expect_field(env, target, field, value):
    asserts.equals(env, value, getattr(target[PteInfo], field), "PteInfo.{} of {}".format(field, target.label))

def _expect_file(env, target, field, basename):
    asserts.equals(env, basename, getattr(target[PteInfo], field).basename, "PteInfo.{}.basename of {}".format(field, target.label))

def _pte_info_test_impl(ctx):
    env = analysistest.begin(ctx)
    target = analysistest.target_under_test(env)
    for field, value in json.decode(ctx.attr.fields).items():
        _expect_field(env, target, field, value)
    name = target.label.name
    _expect_file(env, target, "pte", name + ".pte")
    _expect_file(env, target, "manifest", name + ".manifest.json")
    _expect_file(env, target, "tokenizer", "tokenizer.json")
    outputs = sorted([f.basename for f in target[DefaultInfo].files.to_list()])
    asserts.equals(env, sorted([name + ".pte", name + ".manifest.json"]), outputs, "DefaultInfo.files")
    return analysistest.end(env)

_pte_info_test = analysistest.make(
    _pte_info_test_impl,
    attrs = {"fields": attr.string(mandatory = True, doc = "JSON: PteInfo field -> expected value.")},
)

# target -> the PteInfo fields it must provide
_CASES = {
    "//models:tiny_int4": {
        "kind": "llm",
        "backend": "xnnpack",
        "quantize": "8da4w_asym",
        "max_seq_len": 32,
        "max_context_len": 256,
    },
    "//models:tiny_fp32": {
        "kind": "llm",
        "backend": "portable",
        "quantize": "none",
        "max_seq_len": 32,
        "max_context_len": 256,
    },
    # A QNN program takes one token per forward call.
    "//models:tiny_qnn": {
        "kind": "llm",
        "backend": "qnn",
        "max_seq_len": 1,
    },
    "//models:minilm_l6_int8": {
        "kind": "sentence_encoder",
        "backend": "xnnpack",
        "quantize": "8da8w",
        "max_context_len": 0,
    },
}

def pte_info_test_suite(name):
    """One analysis test per case in _CASES.

    Args:
      name: name of the test_suite that groups them.
    """
    tests = []
    for target, fields in _CASES.items():
        test = name + "_" + target.split(":")[1]
        _pte_info_test(
            name = test,
            target_under_test = target,
            fields = json.encode(fields),
        )
        tests.append(":" + test)
    native.test_suite(name = name, tests = tests)
