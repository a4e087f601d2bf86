"""The models //bench:peers compares on, and where each one's files are.

Each model is one checkpoint seen three ways: our 4-bit program, and the
GGUF that write_gguf.py writes from the same checkpoint (Q4_1 linears,
8-bit embedding table and head: the layout of our recipe), which llama.cpp
and OpenVINO GenAI both read. The small model is bundled with //bench:peers;
the 1B-class one is manual (its export takes 8 minutes and 12 GB), so the bench
takes it from bazel-bin once it has been built, and otherwise says how to
build it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from tools.python.runfile import runfile


@dataclass(frozen=True)
class BenchModel:
    name: str
    title: str
    program: str  # models/<program>.pte
    checkpoint: str  # models/<checkpoint>/: tokenizer files
    gguf: str  # workspace-relative path of the GGUF built from the same checkpoint
    targets: tuple[str, ...]  # what `bazel build` makes the files with


MODELS = {
    "smollm2_135m": BenchModel(
        name="smollm2_135m",
        title="SmolLM2-135M-Instruct",
        program="llama_int4",
        checkpoint="smollm2_135m",
        gguf="bench/peers/smollm2_135m_q4_1.gguf",
        targets=("//bench/peers:smollm2_135m_q4_1", "//models:llama_int4"),
    ),
    "llama3_2_1b_shape": BenchModel(
        name="llama3_2_1b_shape",
        title="Llama 3.2 1B's architecture, seeded weights",
        program="llama3_2_1b_shape_int4",
        checkpoint="llama3_2_1b_shape",
        gguf="bench/peers/llama3_2_1b_shape_q4_1.gguf",
        targets=("//bench/peers:llama3_2_1b_shape_q4_1", "//models:llama3_2_1b_shape_int4"),
    ),
}


class ModelFilesMissing(RuntimeError):
    """A model's files are neither in the runfiles nor in bazel-bin."""


@dataclass(frozen=True)
class ModelFiles:
    pte: str
    manifest: str
    tokenizer_json: str
    gguf: str


def locate(model: BenchModel) -> ModelFiles:
    relative = {
        "pte": f"models/{model.program}.pte",
        "manifest": f"models/{model.program}.manifest.json",
        "tokenizer_json": f"models/{model.checkpoint}/tokenizer.json",
        "gguf": model.gguf,
    }
    # `bazel run` leaves the workspace in BUILD_WORKSPACE_DIRECTORY; a
    # manual model's files are wherever its last build put them.
    bazel_bin = os.path.join(os.environ.get("BUILD_WORKSPACE_DIRECTORY", ""), "bazel-bin")
    found = {}
    for key, path in relative.items():
        for candidate in (runfile(path), os.path.join(bazel_bin, path)):
            if os.path.exists(candidate):
                found[key] = candidate
                break
        else:
            raise ModelFilesMissing(
                f"{model.name}: {path} is not built; build it first:\n  bazel build {' '.join(model.targets)}"
            )
    return ModelFiles(**found)
