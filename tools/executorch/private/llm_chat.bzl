"""llm_chat: a language model's program, runnable as a chat with `bazel run`."""

load(":providers.bzl", "PteInfo")

# `bazel run` starts in the runfiles tree of this workspace, where the
# files' short paths resolve; --model and --tokenizer given again win.
_LAUNCHER = """#!/bin/sh
exec "{runner}" --model="{pte}" --tokenizer="{tokenizer}" "$@"
"""

def _llm_chat_impl(ctx):
    program = ctx.attr.program[PteInfo]
    if program.kind != "llm" or program.backend == "qnn":
        fail("llm_chat {}: {} is a {} program on {}; llm_main runs language models on the CPU".format(
            ctx.label,
            ctx.attr.program.label,
            program.kind,
            program.backend,
        ))
    tokenizer = ctx.file.tokenizer
    runner = ctx.executable._runner
    launcher = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.write(
        launcher,
        _LAUNCHER.format(runner = runner.short_path, pte = program.pte.short_path, tokenizer = tokenizer.short_path),
        is_executable = True,
    )
    runfiles = ctx.runfiles(files = [runner, program.pte, program.manifest, tokenizer])
    runfiles = runfiles.merge(ctx.attr._runner[DefaultInfo].default_runfiles)
    return [DefaultInfo(executable = launcher, files = depset([launcher]), runfiles = runfiles)]

llm_chat = rule(
    implementation = _llm_chat_impl,
    executable = True,
    doc = """`bazel run :<name> -- --prompt="..."`: llm_main with `program` and `tokenizer`, its compiled tokenizer.

executorch_pte makes one for every CPU program, named `<program>_chat`:

    bazel run //models:llama_int4_chat -- --prompt="What is the capital of France?"
    bazel run //models:llama_int4_chat -- --interactive

Every other llm_main flag passes through.
""",
    attrs = {
        "program": attr.label(mandatory = True, providers = [PteInfo], doc = "An executorch_pte language model (not QNN)."),
        "tokenizer": attr.label(mandatory = True, allow_single_file = [".tok"], doc = "The program's compiled_tokenizer."),
        "_runner": attr.label(default = Label("//runtime:llm_main"), executable = True, cfg = "target"),
    },
)
