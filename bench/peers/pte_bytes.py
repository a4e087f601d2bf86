"""Bytes a decode step of an exported llama reads from memory.

A decode step multiplies one token's activations by every weight matrix, so
it streams every weight once: the XNNPACK delegates' weight data (the
program's named data) plus the program's own constants. Two kinds of
constant are gathered, not streamed: the embedding table (and its scales),
of which one row per token is read, and the rotary tables (one row per
position); both are recognised by their first dimension (vocabulary size,
context length). The KV cache adds 2 x layers x kv_heads x head_dim fp32
values per cached position.

The ceiling on decode speed is then bandwidth / bytes per token; it ignores
caches (the weights of a 135M 4-bit model are about 20x the last-level
cache, so they do not stay there between tokens).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass

KV_BYTES = 4  # the exports keep the KV cache in fp32


@dataclass(frozen=True)
class DecodeBytes:
    file_bytes: int
    delegate_weight_bytes: int  # XNNPACK's weight data: streamed
    program_constant_bytes: int  # the program's own constants, all kinds
    gathered_bytes: int  # embedding table + rotary tables: one row per token
    kv_bytes_per_position: int

    @property
    def weight_bytes_per_token(self) -> int:
        return self.delegate_weight_bytes + self.program_constant_bytes - self.gathered_bytes

    def bytes_per_token(self, mean_position: float) -> float:
        return self.weight_bytes_per_token + self.kv_bytes_per_position * mean_position

    def as_dict(self) -> dict:
        return {**asdict(self), "weight_bytes_per_token": self.weight_bytes_per_token}


def decode_bytes(pte_path: str, manifest_path: str) -> DecodeBytes:
    from executorch.exir._serialize._program import deserialize_pte_binary

    with open(manifest_path) as f:
        manifest = json.load(f)
    arch, config = manifest["architecture"], manifest["config"]
    vocab, context = int(arch["vocabSize"]), int(config["maxContextLen"])
    with open(pte_path, "rb") as f:
        data = f.read()
    pte = deserialize_pte_binary(data)
    program = pte.program
    buffers = program.constant_buffer
    constant = gathered = 0
    seen = set()
    for plan in program.execution_plan:
        for value in plan.values:
            tensor = value.val
            index = getattr(tensor, "data_buffer_idx", 0)
            if index <= 0 or index in seen:  # 0: not a constant
                continue
            seen.add(index)
            size = len(buffers[index].storage)
            constant += size
            if tensor.sizes and tensor.sizes[0] in (vocab, context):
                gathered += size
    delegate = 0
    if pte.named_data is not None:
        delegate = sum(len(buffer) for buffer in pte.named_data.buffers)
    head_dim = int(arch["dim"]) // int(arch["nHeads"])
    kv = 2 * int(arch["nLayers"]) * int(arch["nKvHeads"]) * head_dim * KV_BYTES
    return DecodeBytes(len(data), delegate, constant, gathered, kv)


def ceiling_tokens_per_s(bandwidth_gb_s: float, bytes_per_token: float) -> float:
    if bytes_per_token <= 0 or not math.isfinite(bandwidth_gb_s):
        raise ValueError(f"cannot bound decode speed with {bytes_per_token} bytes per token")
    return bandwidth_gb_s * 1e9 / bytes_per_token
