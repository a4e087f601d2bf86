"""The output head in 8 bits: int8 weights per output row, int8 dynamic activations.

The head maps the last hidden state onto every token of the vocabulary, so
its errors land straight on the logits that pick the next token; GGUF keeps
it (tied to the embedding table) at 8 bits for that reason. On SmolLM2 a
4-bit head alone costs about half of symmetric int4's perplexity loss.

XNNPACK runs this layout (qc8w, one scale per output row) with its int8
dynamic-activation GEMM; it has no blockwise 8-bit layout and no weight-only
int8 GEMM. Measured in eager PyTorch on SmolLM2, against GGUF's own Q8_0
blocks of 32 with per-block int8 activations (a split into 18 small GEMMs
that XNNPACK could run): perplexity +1.8% vs +1.6% on Emma, so the single
GEMM wins on op count.
"""

from __future__ import annotations

import torch
from torch import nn


def int8_rows(linear: nn.Linear) -> nn.Parameter:
    """linear.weight as a symmetric int8 tensor with one scale per output row."""
    from torchao.quantization.quantize_.workflows.intx.intx_unpacked_to_int8_tensor import (
        IntxUnpackedToInt8Tensor,
        IntxUnpackedToInt8TensorActivationQuantization,
    )

    weight = linear.weight.detach().to(torch.float32)
    # 127.5 rather than 127: the int8 range is -128..127, so the largest
    # magnitude maps to ±127.5 and rounds inside it either way.
    scale = (weight.abs().amax(dim=1, keepdim=True) / 127.5).clamp(min=1e-12)
    rows = torch.round(weight / scale).clamp(-128, 127).to(torch.int8)
    return nn.Parameter(
        IntxUnpackedToInt8Tensor(
            qdata=rows,
            scale=scale,
            zero_point=torch.zeros_like(scale, dtype=torch.int8),
            target_dtype=torch.int8,
            block_size=(1, weight.shape[1]),
            dtype=torch.float32,
            activation_quantization=IntxUnpackedToInt8TensorActivationQuantization.INT8_ASYM_PER_TOKEN,
        ),
        requires_grad=False,
    )
