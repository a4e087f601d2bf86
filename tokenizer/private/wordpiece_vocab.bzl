"""wordpiece_vocab: a BERT tokenizer.json compiled into the C++ WordPiece tokenizer's file.

    load("//tokenizer:defs.bzl", "wordpiece_vocab")
"""

load("//tools/python:action_env.bzl", "NO_NETWORK", "PYTHON_ACTION_ENV")

# The WordPiece compiler walks sets: PYTHON_ACTION_ENV's fixed hash seed
# keeps its output's order stable.

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
        env = PYTHON_ACTION_ENV,
        execution_requirements = NO_NETWORK,
        mnemonic = "CompileWordPiece",
        progress_message = "Compiling WordPiece tokenizer {}".format(ctx.label),
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

wordpiece_vocab = rule(
    implementation = _wordpiece_vocab_impl,
    doc = """Writes `<name>.wpt`, the file the runtime's WordPieceTokenizer loads.

Its Unicode tables are derived from Hugging Face `tokenizers` at build time
(format: tokenizer/compiler/compile_wordpiece.py). Fails, naming what differs,
for a tokenizer that is not an uncased BERT WordPiece one.
""",
    attrs = {
        "tokenizer": attr.label(allow_single_file = [".json"], mandatory = True, doc = "Hugging Face tokenizer.json (WordPiece)."),
        "_compiler": attr.label(
            default = Label("//tokenizer/compiler:compile_wordpiece"),
            executable = True,
            cfg = "exec",
        ),
    },
)
