"""Public API for the C++ runtime's tokenizer files.

    load("//tools/tokenizer:defs.bzl", "compiled_tokenizer", "wordpiece_vocab")

compiled_tokenizer: a Hugging Face byte-level BPE tokenizer.json turned into
the file the runtime's BpeTokenizer loads. wordpiece_vocab: a sentence
encoder's vocab.txt turned into the file its WordPiece tokenizer loads.
"""

load("//runtime/tokenizer:wordpiece_vocab.bzl", _wordpiece_vocab = "wordpiece_vocab")

wordpiece_vocab = _wordpiece_vocab

# Starlark actions start from an empty environment. The compiler imports only
# absl and jinja2, so it needs no more than the interpreter's launcher (PATH)
# and a Python that ignores the user's site-packages.
_ACTION_ENV = {
    "PATH": "/usr/bin:/bin",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONNOUSERSITE": "1",
}

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
        env = _ACTION_ENV,
        execution_requirements = {"block-network": ""},
        mnemonic = "CompileTokenizer",
        progress_message = "Compiling tokenizer {}".format(ctx.label),
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

compiled_tokenizer = rule(
    implementation = _compiled_tokenizer_impl,
    doc = """Writes `<name>.tok`, the file runtime/tokenizer's BpeTokenizer loads.

Fails at build time, naming what is unsupported, if the tokenizer is not
byte-level BPE with the GPT-2 pre-tokenizer or its chat template is not ChatML.
""",
    attrs = {
        "tokenizer": attr.label(allow_single_file = [".json"], mandatory = True, doc = "Hugging Face tokenizer.json."),
        "tokenizer_config": attr.label(
            allow_single_file = [".json"],
            mandatory = True,
            doc = "tokenizer_config.json with bos/eos tokens and chat_template.",
        ),
        "_compiler": attr.label(
            default = Label("//tools/tokenizer:compile_tokenizer"),
            executable = True,
            cfg = "exec",
        ),
    },
)
