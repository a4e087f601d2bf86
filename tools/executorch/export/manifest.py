"""Writes <name>.manifest.json, the record beside every .pte (schema: manifest.proto)."""

from __future__ import annotations

import json
import os
import platform
from importlib import metadata

from tools.executorch.export.digest import sha256_of
from tools.executorch.export.special_tokens import SpecialTokens


def versions():
    from tools.executorch import manifest_pb2

    return manifest_pb2.Versions(
        torch=metadata.version("torch"),
        executorch=metadata.version("executorch"),
        torchao=metadata.version("torchao"),
        python=platform.python_version(),
    )


def ffn_hidden_dim(params: dict) -> int:
    """The feed-forward width; Llama 3.x params.json gives it only as a formula."""
    if params.get("hidden_dim"):
        return params["hidden_dim"]
    hidden = int(2 * (4 * params["dim"]) / 3)
    if params.get("ffn_dim_multiplier"):
        hidden = int(params["ffn_dim_multiplier"] * hidden)
    multiple_of = params.get("multiple_of", 256)
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)


def llama_architecture(params: dict, parameters: int = 0):
    """Architecture from a Meta-layout params.json."""
    from tools.executorch import manifest_pb2

    return manifest_pb2.Architecture(
        dim=params["dim"],
        n_layers=params["n_layers"],
        n_heads=params["n_heads"],
        n_kv_heads=params.get("n_kv_heads") or params["n_heads"],
        hidden_dim=ffn_hidden_dim(params),
        vocab_size=params["vocab_size"],
        parameters=parameters,
    )


def tokenizer_ref(tokenizer_json: str, tokens: SpecialTokens):
    from tools.executorch import manifest_pb2

    return manifest_pb2.TokenizerRef(
        file=os.path.basename(tokenizer_json),
        sha256=sha256_of(tokenizer_json),
        bos_id=tokens.bos_id,
        eos_ids=tokens.eos_ids,
        has_chat_template=tokens.has_chat_template,
    )


def program_fields(pte_path: str) -> dict:
    """The manifest's pte, sha256 and size_bytes, read from the written program."""
    return {"pte": os.path.basename(pte_path), "sha256": sha256_of(pte_path), "size_bytes": os.path.getsize(pte_path)}


def write_manifest(path: str, manifest, extra: dict | None = None) -> None:
    """Serialises a PteManifest with every field present, keys sorted; `extra` adds top-level messages (e.g. "qnn")."""
    from google.protobuf import json_format

    document = json_format.MessageToDict(manifest, always_print_fields_with_no_presence=True)
    for key, message in (extra or {}).items():
        document[key] = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    with open(path, "w") as f:
        json.dump(document, f, sort_keys=True, indent=2)
        f.write("\n")


def read_params(path: str) -> dict:
    with open(path) as f:
        return json.load(f)


def checkpoint_parameters(checkpoint: str) -> int:
    """How many numbers the state dict holds (mapped, not read)."""
    import torch

    return sum(t.numel() for t in torch.load(checkpoint, map_location="cpu", mmap=True, weights_only=True).values())
