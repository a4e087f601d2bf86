"""calibration_set: tokenized passages of a text, for post-training quantization."""

load("//tools/python:action_env.bzl", "NO_NETWORK", "PYTHON_ACTION_ENV")
load(":providers.bzl", "CalibrationSetInfo", "LlmCheckpointInfo")

def _calibration_set_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name + ".json")
    tokenizer = ctx.attr.model[LlmCheckpointInfo].tokenizer
    args = ctx.actions.args()
    args.add("--text", ctx.file.text)
    args.add("--tokenizer", tokenizer)
    args.add("--passages", ctx.attr.passages)
    args.add("--min_tokens", ctx.attr.min_tokens)
    args.add("--max_tokens", ctx.attr.max_tokens)
    args.add("--out", out)
    ctx.actions.run(
        executable = ctx.executable._tool,
        arguments = [args],
        inputs = [ctx.file.text, tokenizer],
        outputs = [out],
        env = PYTHON_ACTION_ENV,
        execution_requirements = NO_NETWORK,
        mnemonic = "CalibrationSet",
        progress_message = "Tokenizing calibration passages for {}".format(ctx.label),
    )
    return [
        DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out])),
        CalibrationSetInfo(file = out, passages = ctx.attr.passages, model = ctx.attr.model.label),
    ]

calibration_set = rule(
    implementation = _calibration_set_impl,
    doc = "Tokenizes `passages` paragraphs of `text` with `model`'s tokenizer into `<name>.json`.",
    attrs = {
        "text": attr.label(mandatory = True, allow_single_file = True, doc = "UTF-8 text; paragraphs separated by blank lines."),
        "model": attr.label(mandatory = True, providers = [LlmCheckpointInfo], doc = "Whose tokenizer to use."),
        "passages": attr.int(default = 256, doc = "Passages kept, at an even stride through the text."),
        "min_tokens": attr.int(default = 32, doc = "Shortest paragraph that counts."),
        "max_tokens": attr.int(default = 96, doc = "Passages are cut here."),
        "_tool": attr.label(default = Label("//tools/executorch:make_calibration_set"), executable = True, cfg = "exec"),
    },
)
