"""Writes a Hugging Face model folder the way save_pretrained lays one out, byte-stable.

config.json, generation_config.json, model-0000i-of-0000n.safetensors with
model.safetensors.index.json when there is more than one shard, and
tokenizer_config.json (the tokenizer.json is the caller's). Tensors are
split between shards in name order, so the same weights give the same files.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping


def _dump(path: str, value: Mapping) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=2, sort_keys=True, ensure_ascii=False)
        f.write("\n")


def write(
    out_dir: str,
    *,
    config: Mapping,
    state_dict: Mapping,
    shards: int,
    tokenizer_config: Mapping,
    generation_config: Mapping,
) -> list[str]:
    """Writes the folder; returns the safetensors files' names."""
    from safetensors.torch import save_file

    os.makedirs(out_dir, exist_ok=True)
    # Tied embeddings are stored once, as save_pretrained does.
    names = sorted(n for n in state_dict if not (config.get("tie_word_embeddings") and n == "lm_head.weight"))
    per_shard = -(-len(names) // shards)
    groups = [names[i : i + per_shard] for i in range(0, len(names), per_shard)]
    files = (
        ["model.safetensors"]
        if len(groups) == 1
        else [f"model-{i + 1:05d}-of-{len(groups):05d}.safetensors" for i in range(len(groups))]
    )
    weight_map = {}
    total = 0
    for file, group in zip(files, groups, strict=True):
        tensors = {name: state_dict[name].detach().contiguous().clone() for name in group}
        save_file(tensors, os.path.join(out_dir, file), metadata={"format": "pt"})
        for name, tensor in tensors.items():
            weight_map[name] = file
            total += tensor.numel() * tensor.element_size()
    if len(files) > 1:
        _dump(
            os.path.join(out_dir, "model.safetensors.index.json"),
            {"metadata": {"total_size": total}, "weight_map": weight_map},
        )
    _dump(os.path.join(out_dir, "config.json"), config)
    _dump(os.path.join(out_dir, "generation_config.json"), generation_config)
    _dump(os.path.join(out_dir, "tokenizer_config.json"), tokenizer_config)
    return files
