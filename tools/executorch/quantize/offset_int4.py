"""Asymmetric 4-bit linears that run on XNNPACK's symmetric 4-bit kernels.

GGUF's Q4_1 and most 4-bit checkpoints store each block of 32 weights as
`w = s·q + lo` with q in 0..15: the 16 levels span the block's own range.
XNNPACK's blockwise 4-bit weights are symmetric (`w = s·k`, k in -8..7), so a
block whose values are not centred on zero loses levels, and on SmolLM2 that
cost +31% perplexity. The two are one rewrite apart:

    s·q + lo = s·(q − 8) + m,   m = lo + 8·s

so `x·Wᵀ` is a symmetric blockwise int4 GEMM on `q − 8` (XNNPACK's 8da4w
kernel, int8 dynamic activations) plus, per block b, `m[:, b]` times the sum
of x over that block. That second term is a small fp32 linear over the
`in_features / 32` block means: exact, and no custom kernel. Its offsets
cost 4 bytes per block of 32 weights, a quarter more than the int4 data.

A linear's bias (Qwen2.5's q/k/v) is the offset linear's bias.

The block means are an XNNPACK global average pool, so the whole linear stays
inside the delegate, with its neighbours. The pool reads an (n·blocks, 1, 32, 1)
view: with one channel its NCHW and NHWC layouts are the same bytes, so XNNPACK
needs no transpose around it, nor its channels-last pass to place one
(xnnpack_graph/partitioner.py).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from tools.executorch.quantize.outlier_channels import Outliers

BF16 = torch.bfloat16


def asymmetric_blocks(weight: torch.Tensor, group: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(k, s, m) with weight ≈ s·k + m per block; k in -8..7, s and m of shape (out, in/group).

    XNNPACK stores block scales in bf16, so s is rounded to bf16 here, before
    the levels are chosen, and m is refitted to the rounded scale: the
    program then computes exactly what this function returns.
    """
    out_features, in_features = weight.shape
    blocks = weight.detach().to(torch.float32).reshape(out_features, in_features // group, group)
    low = blocks.amin(dim=-1)
    high = blocks.amax(dim=-1)
    # bf16 rounding moves the top level by at most 15·2⁻⁹ of a step, so
    # rounding and clamping still give every level its original index.
    scale = ((high - low) / 15).clamp(min=1e-12).to(BF16).to(torch.float32)
    levels = torch.round((blocks - low[..., None]) / scale[..., None]).clamp(0, 15)
    k = levels - 8
    # Least-squares offset for the rounded scale: the mean residual per block.
    offset = (blocks - scale[..., None] * k).mean(dim=-1)
    return k.to(torch.int8).reshape(out_features, in_features), scale, offset


class OffsetInt4Linear(nn.Module):
    """y = x·(s·k)ᵀ on int8 dynamic activations + block_means(x)·(group·m)ᵀ (+ bias).

    With `outliers` (outlier_channels.py) the int4 GEMM reads x with those
    channels zeroed, and the offset linear takes them as extra inputs, with
    their columns of s·k as weights: the same linear, one GEMM per linear as
    before.
    """

    def __init__(self, linear: nn.Linear, group: int, outliers: Outliers | None = None) -> None:
        super().__init__()
        from torchao.quantization.quantize_.workflows.intx.intx_unpacked_to_int8_tensor import (
            IntxUnpackedToInt8Tensor,
            IntxUnpackedToInt8TensorActivationQuantization,
        )

        k, scale, offset = asymmetric_blocks(linear.weight, group)
        self.group = group
        self.in_features = linear.in_features
        self.out_features = linear.out_features
        self.weight = nn.Parameter(
            IntxUnpackedToInt8Tensor(
                qdata=k,
                scale=scale,
                zero_point=torch.zeros_like(scale, dtype=torch.int8),
                target_dtype=torch.int4,
                block_size=(1, group),
                dtype=torch.float32,
                activation_quantization=IntxUnpackedToInt8TensorActivationQuantization.INT8_ASYM_PER_TOKEN,
            ),
            requires_grad=False,
        )
        # Means rather than sums (XNNPACK has an average pool, not a sum), so
        # the offsets carry the factor `group`.
        self.offset = nn.Parameter(offset * group, requires_grad=False)
        # Qwen2.5's q/k/v biases ride on the offset term's linear.
        self.bias = None if linear.bias is None else nn.Parameter(linear.bias.detach().float(), requires_grad=False)
        self.keep = self.pick = None
        if outliers is not None:
            # The outlier channels' s·k columns; their offsets stay in the block means.
            side = self.weight.dequantize().to(torch.float32)[:, torch.tensor(outliers.channels, dtype=torch.long)]
            self.offset = nn.Parameter(torch.cat([self.offset, side], dim=1), requires_grad=False)
            self.keep, self.pick = outliers.keep, outliers.pick

    def values(self) -> torch.Tensor:
        """The (out, in) fp32 weights this module computes with: s·k plus each block's offset."""
        blocks = self.in_features // self.group
        offsets = (self.offset[:, :blocks] / self.group).repeat_interleave(self.group, dim=1)
        return self.weight.dequantize().to(torch.float32) + offsets

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        lead = x.shape[:-1]
        blocks = self.in_features // self.group
        # One sequence is the exported programs' case. Its length is
        # symbolic there, XNNPACK lowers no reshape to a symbolic size, and a
        # reshape to (1, n, blocks) would cut the delegate in two at every
        # linear. (n, blocks) broadcasts against the GEMM's (1, n, out)
        # instead: the same values, one delegate.
        one_sequence = math.prod(lead[:-1]) == 1

        def rows(t: torch.Tensor, width: int) -> torch.Tensor:
            return t.reshape(-1, width) if one_sequence else t.reshape(*lead, width)

        means = rows(x.reshape(-1, 1, self.group, 1).mean(dim=(2, 3), keepdim=True), blocks)
        if self.pick is not None:
            means = torch.cat([means, rows(nn.functional.linear(x, self.pick), self.pick.shape[0])], dim=-1)
            x = x * self.keep
        return nn.functional.linear(x, self.weight) + nn.functional.linear(means, self.offset, self.bias)
