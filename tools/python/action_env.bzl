"""What every Python action of these rules runs with, and nothing more.

The one action environment of every tree (exports, checkpoints, tokenizer
compilers, RAG indexes), so that they cannot drift apart:

    load("//tools/python:action_env.bzl", "NO_NETWORK", "PYTHON_ACTION_ENV")

An action that needs one more variable adds it to a copy, with the reason
(rag_index's RUST_LOG).
"""

# Starlark actions start from an empty environment; these are all they get.
# PATH is only for the py_binary launcher's `#!/usr/bin/env python3`.
PYTHON_ACTION_ENV = {
    "PATH": "/usr/bin:/bin",
    "PYTHONHASHSEED": "0",
    "PYTHONNOUSERSITE": "1",
    "PYTHONDONTWRITEBYTECODE": "1",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    # torch and transformers write caches under HOME; keep them out of the
    # user's home and out of the outputs.
    "HOME": "/tmp",
    "OMP_NUM_THREADS": "2",
}

# Honoured by Bazel's Linux sandbox: the action gets no network at all.
NO_NETWORK = {"block-network": ""}
