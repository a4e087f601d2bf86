"""Finds a model program and its tokenizer files in runfiles or on disk."""

from __future__ import annotations

import json
import os

from tools.executorch.pte_runner import PteError
from tools.python.runfile import runfile

BUNDLED = ("llama_int4", "tiny_8da4w", "tiny_fp32")


def resolve(pte: str) -> tuple[str, str, str]:
    """Returns (pte, tokenizer.json, tokenizer_config.json) paths."""
    if pte.endswith(".pte"):
        path = pte if os.path.isabs(pte) else os.path.join(os.environ.get("BUILD_WORKING_DIRECTORY", ""), pte)
    else:
        path = runfile(f"models/{pte}.pte")
    if not os.path.exists(path):
        raise PteError(f"no program {pte!r} (looked at {path}); bundled: {', '.join(BUNDLED)}, or give a .pte path")
    manifest_path = path[: -len(".pte")] + ".manifest.json"
    with open(manifest_path) as f:
        model_label = json.load(f)["config"]["model"]
    checkpoint_dir = os.path.join(os.path.dirname(path), model_label.rpartition(":")[2])
    return path, os.path.join(checkpoint_dir, "tokenizer.json"), os.path.join(checkpoint_dir, "tokenizer_config.json")
