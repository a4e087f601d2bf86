"""How the int4 rewrite rounds a Q4_1 GGUF's block scales, measured on its weights.

Q4_1 stores each block of 32 as `w = d·q + m` with fp16 `d` and `m`.
XNNPACK keeps block scales in bf16, so `offset_int4.asymmetric_blocks`
rounds the scale to bf16 and refits the offset. The kernel arithmetic is
then exact (offset_int4_test), but the weights are not Q4_1's to the bit.
This prints how many scales survive unchanged and the RMS error of the
rewritten weights against Q4_1's own rounding noise (`d/√12` per weight);
--record writes bench/results/q4_1_scale_rounding.json, the record
docs/quantization.md's table comes from:

    bazel run //bench:scale_rounding -- --record
"""

from __future__ import annotations

import math
import os
import sys

import gguf
import numpy as np
import torch
from absl import app, flags

from bench.record import command
from bench.report import publish
from tools.executorch.quantize import offset_int4

_GGUF = flags.DEFINE_string("gguf", None, "a Q4_1 GGUF file", required=True)
_OUT = flags.DEFINE_string("out", "", "Output folder; default bench/out/<date>-q4_1_scale_rounding in the workspace.")
_RECORD = flags.DEFINE_bool("record", False, "Also write bench/results/q4_1_scale_rounding.json.")

GROUP = 32
Q4_1_BLOCK_BYTES = 20  # fp16 d, fp16 m, 16 bytes of 4-bit levels


def q4_1_blocks(tensor: gguf.ReaderTensor) -> tuple[np.ndarray, np.ndarray]:
    """(weights as (blocks, 32) float32, the fp16 scales d as float32)."""
    raw = np.asarray(tensor.data).reshape(-1, Q4_1_BLOCK_BYTES)
    d = raw[:, 0:2].copy().view(np.float16).astype(np.float32).ravel()
    m = raw[:, 2:4].copy().view(np.float16).astype(np.float32).ravel()
    levels = np.concatenate([raw[:, 4:] & 0x0F, raw[:, 4:] >> 4], axis=1).astype(np.float32)
    return d[:, None] * levels + m[:, None], d


def measure(path: str) -> dict:
    blocks = unchanged = weights = 0
    error2 = noise2 = 0.0
    for tensor in gguf.GGUFReader(path).tensors:
        if tensor.tensor_type != gguf.GGMLQuantizationType.Q4_1:
            continue
        w, d = q4_1_blocks(tensor)
        k, scale, offset = offset_int4.asymmetric_blocks(torch.from_numpy(w), GROUP)
        rewritten = scale.numpy()[:, 0:1] * k.numpy().astype(np.float32) + offset.numpy()[:, 0:1]
        spread = w.max(axis=1) > w.min(axis=1)  # constant blocks have no scale to keep
        blocks += int(spread.sum())
        unchanged += int((spread & (scale.numpy()[:, 0] == d)).sum())
        weights += w.size
        error2 += float(np.sum((rewritten - w) ** 2))
        noise2 += float(np.sum(d**2 / 12) * GROUP)
    return {
        "gguf": os.path.basename(path),
        "q4_1_blocks": blocks,
        "scales_unchanged": round(unchanged / blocks, 4),
        "rms_error_vs_q4_1_rounding": round(math.sqrt(error2 / noise2), 4),
        "weights": weights,
    }


def report(measured: dict) -> str:
    return (
        "# q4_1_scale_rounding\n\n"
        f"The int4 rewrite's bf16 block scales against {measured['gguf']}'s fp16 ones.\n\n"
        "| Q4_1 blocks | scales unchanged | RMS error, of Q4_1's own rounding noise |\n"
        "|---|---|---|\n"
        f"| {measured['q4_1_blocks']:,} | {100 * measured['scales_unchanged']:.2f}% "
        f"| {100 * measured['rms_error_vs_q4_1_rounding']:.2f}% |\n"
    )


def main(argv: list[str]) -> None:
    del argv
    measured = measure(_GGUF.value)
    publish(
        "q4_1_scale_rounding",
        measured,
        report(measured),
        _OUT.value,
        _RECORD.value,
        command("//bench:scale_rounding", sys.argv[1:], drop=("gguf",)),
    )


if __name__ == "__main__":
    app.run(main)
