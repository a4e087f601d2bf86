"""llm_chat: a language model's program, runnable as a chat with `bazel run`."""

load("//tools/python:action_env.bzl", "NO_NETWORK", "PYTHON_ACTION_ENV")
load(":providers.bzl", "PteInfo")

# `bazel run` starts in the runfiles tree of this workspace, where the
# files' short paths resolve; --model and --tokenizer given again win.
_LAUNCHER = """#!/bin/sh
exec "{runner}" --model="{pte}" --tokenizer="{tokenizer}"{draft} "$@"
"""

def _check_cpu_llm(ctx, role, target):
    program = target[PteInfo]
    if program.kind != "llm" or program.backend == "qnn":
        fail("llm_chat {}: the {} {} is a {} program on {}; llm_main runs language models on the CPU".format(
            ctx.label,
            role,
            target.label,
            program.kind,
            program.backend,
        ))
    return program

def _same_vocabulary(ctx, program, draft):
    """The files that prove `draft` can draft for `program`: none when both read one tokenizer file."""
    if program.tokenizer == draft.tokenizer:
        return []
    proof = ctx.actions.declare_file(ctx.label.name + ".same_vocabulary")
    args = ctx.actions.args()
    args.add("--tokenizer", program.tokenizer)
    args.add("--draft_tokenizer", draft.tokenizer)
    args.add("--program", str(ctx.attr.program.label))
    args.add("--draft", str(ctx.attr.draft.label))
    args.add("--out", proof)
    ctx.actions.run(
        executable = ctx.executable._same_vocabulary,
        arguments = [args],
        inputs = [program.tokenizer, draft.tokenizer],
        outputs = [proof],
        env = PYTHON_ACTION_ENV,
        execution_requirements = NO_NETWORK,
        mnemonic = "SameVocabulary",
        progress_message = "Checking that {} can draft for {}".format(ctx.attr.draft.label, ctx.attr.program.label),
    )
    return [proof]

def _llm_chat_impl(ctx):
    program = _check_cpu_llm(ctx, "program", ctx.attr.program)
    tokenizer = ctx.file.tokenizer
    runner = ctx.executable._runner
    files = [runner, program.pte, program.manifest, tokenizer]
    draft_flags = ""
    checks = []
    if ctx.attr.draft:
        draft = _check_cpu_llm(ctx, "draft", ctx.attr.draft)
        checks = _same_vocabulary(ctx, program, draft)
        files += [draft.pte, draft.manifest]
        draft_flags = ' --speculative=draft --draft_model="{}"'.format(draft.pte.short_path)
    launcher = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.write(
        launcher,
        _LAUNCHER.format(runner = runner.short_path, pte = program.pte.short_path, tokenizer = tokenizer.short_path, draft = draft_flags),
        is_executable = True,
    )
    runfiles = ctx.runfiles(files = files + checks)
    runfiles = runfiles.merge(ctx.attr._runner[DefaultInfo].default_runfiles)
    return [DefaultInfo(executable = launcher, files = depset([launcher] + checks), runfiles = runfiles)]

llm_chat = rule(
    implementation = _llm_chat_impl,
    executable = True,
    doc = """`bazel run :<name> -- --prompt="..."`: llm_main with `program` and `tokenizer`, its compiled tokenizer.

executorch_pte makes one for every CPU program, named `<program>_chat`:

    bazel run //models:llama_int4_chat -- --prompt="What is the capital of France?"
    bazel run //models:llama_int4_chat -- --interactive

Every other llm_main flag passes through.

With `draft`, a smaller program decodes a few tokens ahead and `program`
verifies them in one call (`--speculative=draft`); the greedy reply is
`program`'s own. The build checks that both tokenizers give every token id
the same text, and fails naming the first id where they differ:

    llm_chat(
        name = "llama_int4_drafted_chat",
        program = ":llama_int4",
        draft = ":tiny_int4",
        tokenizer = ":llama_int4_chat_tok",
    )
""",
    attrs = {
        "program": attr.label(mandatory = True, providers = [PteInfo], doc = "An executorch_pte language model (not QNN)."),
        "tokenizer": attr.label(mandatory = True, allow_single_file = [".tok"], doc = "The program's compiled_tokenizer."),
        "draft": attr.label(
            providers = [PteInfo],
            doc = "A smaller executorch_pte language model with the same tokenizer, which drafts for `program`.",
        ),
        "_runner": attr.label(default = Label("//runtime:llm_main"), executable = True, cfg = "target"),
        "_same_vocabulary": attr.label(
            default = Label("//tokenizer/compare:same_vocabulary"),
            executable = True,
            cfg = "exec",
        ),
    },
)
