"""Rotary position embedding in operators that XNNPACK lowers, as a source transform.

ExecuTorch's llama rotation splits each head into (real, imaginary) pairs
with a reshape to (..., -1, 2) and an unbind: a reshape with two inferred
sizes and strided copies, which XNNPACK does not take, so every layer's
delegate is cut there and the runtime copies the halves itself. The same
rotation, with a constant matrix instead:

    out = x * cos + (x @ P) * sin

P maps each pair (a, b) to (-b, a), and the rope's frequency tables hold
each pair's cosine and sine twice (the transform rewrites them once). P has
one nonzero (+1 or -1) per column, so each product in x @ P is exact and its
sum adds only zeros: every output element is upstream's IEEE expression,
x_r * c - x_i * s and x_i * c + x_r * s, bit for bit (pair_rotation_test).
"""

from __future__ import annotations

import torch
from torch import nn


class PairRotation(nn.Module):
    """Drop-in for executorch.examples.models.llama.rope.RotaryEmbedding, on pair-repeated tables."""

    def __init__(self, head_dim: int) -> None:
        super().__init__()
        if head_dim % 2:
            raise ValueError(f"rotary embedding needs an even head_dim, got {head_dim}")
        self.head_dim = head_dim
        rotate = torch.zeros(head_dim, head_dim)
        for j in range(head_dim // 2):
            # A linear's weight is P transposed: out[2j] = -x[2j+1], out[2j+1] = x[2j].
            rotate[2 * j, 2 * j + 1] = -1.0
            rotate[2 * j + 1, 2 * j] = 1.0
        self.register_buffer("rotate", rotate, persistent=False)

    def _rotate(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        x = x.float()
        return x * cos + nn.functional.linear(x, self.rotate) * sin

    def forward(
        self, xq: torch.Tensor, xk: torch.Tensor, freqs_cos: torch.Tensor, freqs_sin: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if freqs_cos.dim() != 2 or freqs_cos.shape[-1] != self.head_dim:
            raise ValueError(
                f"expected frequency tables of shape (positions, {self.head_dim}) from pair_rotation, "
                f"got {tuple(freqs_cos.shape)}"
            )
        # (positions, head_dim) -> (1, positions, 1, head_dim): over batch and heads.
        cos = freqs_cos.unsqueeze(0).unsqueeze(2)
        sin = freqs_sin.unsqueeze(0).unsqueeze(2)
        return self._rotate(xq, cos, sin).type_as(xq), self._rotate(xk, cos, sin).type_as(xk)


def pair_rotation(model: nn.Module) -> nn.Module:
    """Gives each ExecuTorch Rope of `model` PairRotation and pair-repeated tables, in place.

    A model on another rotary layout (use_hf_rope rotates halves, not pairs)
    is left as it is: its program is as correct, with more delegate calls.
    """
    from executorch.examples.models.llama.rope import RotaryEmbedding

    for module in model.modules():
        if isinstance(getattr(module, "apply_rotary_emb", None), RotaryEmbedding):
            module.apply_rotary_emb = PairRotation(module.params.head_dim)
            # (positions, head_dim / 2) -> (positions, head_dim): c0 c0 c1 c1 ...
            module.freqs_cos = module.freqs_cos.repeat_interleave(2, dim=-1)
            module.freqs_sin = module.freqs_sin.repeat_interleave(2, dim=-1)
    return model
