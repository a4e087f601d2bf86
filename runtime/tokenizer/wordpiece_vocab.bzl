"""wordpiece_vocab: a BERT tokenizer.json compiled into the C++ WordPiece tokenizer's file.

    load("//tools/tokenizer:defs.bzl", "wordpiece_vocab")
"""

# Starlark actions start from an empty environment. The compiler imports only
# absl and tokenizers, so it needs no more than the interpreter's launcher
# (PATH) and a Python that ignores the user's site-packages.
_ACTION_ENV = {
    "PATH": "/usr/bin:/bin",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONHASHSEED": "0",
    "PYTHONNOUSERSITE": "1",
}

def _wordpiece_vocab_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name + ".wpt")
    args = ctx.actions.args()
    args.add("--tokenizer_json", ctx.file.tokenizer)
    args.add("--out", out)
    ctx.actions.run(
        executable = ctx.executable._compiler,
        arguments = [args],
        inputs = [ctx.file.tokenizer],
        outputs = [out],
        env = _ACTION_ENV,
        execution_requirements = {"block-network": ""},
        mnemonic = "CompileWordPiece",
        progress_message = "Compiling WordPiece tokenizer {}".format(ctx.label),
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

wordpiece_vocab = rule(
    implementation = _wordpiece_vocab_impl,
    doc = """Writes `<name>.wpt`, the file runtime/tokenizer's WordPieceTokenizer loads.

Its Unicode tables are derived from Hugging Face `tokenizers` at build time
(format: runtime/tokenizer/wordpiece_compile.py). Fails, naming what differs,
for a tokenizer that is not an uncased BERT WordPiece one.
""",
    attrs = {
        "tokenizer": attr.label(allow_single_file = [".json"], mandatory = True, doc = "Hugging Face tokenizer.json (WordPiece)."),
        "_compiler": attr.label(
            default = Label("//runtime/tokenizer:wordpiece_compile"),
            executable = True,
            cfg = "exec",
        ),
    },
)
