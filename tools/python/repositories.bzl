"""Public API: the hermetic Python venv (WORKSPACE) and its module extension (bzlmod)."""

load("//tools/python/private:python_venv.bzl", _python_venv = "python_venv")

python_venv = _python_venv
