"""compiled_tokenizer: a Hugging Face byte-level BPE tokenizer.json compiled into the C++ BpeTokenizer's file."""

load("//tools/python:action_env.bzl", "NO_NETWORK", "PYTHON_ACTION_ENV")

def _compiled_tokenizer_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name + ".tok")
    args = ctx.actions.args()
    args.add("--tokenizer_json", ctx.file.tokenizer)
    args.add("--tokenizer_config", ctx.file.tokenizer_config)
    args.add("--out", out)
    ctx.actions.run(
        executable = ctx.executable._compiler,
        arguments = [args],
        inputs = [ctx.file.tokenizer, ctx.file.tokenizer_config],
        outputs = [out],
        env = PYTHON_ACTION_ENV,
        execution_requirements = NO_NETWORK,
        mnemonic = "CompileTokenizer",
        progress_message = "Compiling tokenizer {}".format(ctx.label),
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

compiled_tokenizer = rule(
    implementation = _compiled_tokenizer_impl,
    doc = """Writes `<name>.tok`, the file the runtime's BpeTokenizer loads.

Fails at build time, naming what is unsupported, if the tokenizer is not
byte-level BPE with the GPT-2, Llama 3 or Qwen2 pre-tokenizer, or its chat
template is neither ChatML nor Llama 3's header format.
""",
    attrs = {
        "tokenizer": attr.label(allow_single_file = [".json"], mandatory = True, doc = "Hugging Face tokenizer.json."),
        "tokenizer_config": attr.label(
            allow_single_file = [".json"],
            mandatory = True,
            doc = "tokenizer_config.json with bos/eos tokens and chat_template.",
        ),
        "_compiler": attr.label(
            default = Label("//tokenizer/compiler:compile_tokenizer"),
            executable = True,
            cfg = "exec",
        ),
    },
)
