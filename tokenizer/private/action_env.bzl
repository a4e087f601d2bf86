"""The environment of the tokenizer compilers' actions.

Starlark actions start from an empty environment. The compilers import only
absl plus jinja2 (BPE) or tokenizers (WordPiece), so they need no more than
the interpreter's launcher (PATH) and a Python that ignores the user's
site-packages.
"""

COMPILER_ENV = {
    "PATH": "/usr/bin:/bin",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONNOUSERSITE": "1",
}
