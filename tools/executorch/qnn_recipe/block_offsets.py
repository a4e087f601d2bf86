"""Asymmetric 4-bit blocks on the HTP's symmetric LPBQ weights: the block offset as a linear of its own.

The HTP's 4-bit block weights (LPBQ) are symmetric: a block of 32 holds
s_b * q with q in -8..7, where s_b = S * k_b, one fp32 S per output channel
and an integer k_b in 1..16 per block. An asymmetric block, c_b + s_b * q
(GGUF Q4_1's layout, which SmolLM2's packaged weights are in), does not fit,
and rounding it to a symmetric one costs SmolLM2 about half its perplexity
again (docs/quantization.md). Written out,

    W x = sum_b (c_b + s_b q_b) . x_b = (s q) x + sum_b 32 c_b * mean(x_b)

so each linear becomes the symmetric product plus a small linear over the
input's block means (18 inputs for a 576-wide input), whose weights
32 * c_b are 8-bit per channel. The symmetric part's scales are chosen here,
on the LPBQ grid, per block by least squares, and the quantizer is told them
(grid_observer.py), so the graph in PyTorch computes what the HTP does with
the rounded scales.
"""

from __future__ import annotations

LEVELS = (-8, 7)
SCALE_STEPS = 16  # k_b in 1..16: the HTP's 4-bit block scales


def fit_blocks(weight, group_size: int):
    """The LPBQ fit of an [out, in] weight: (symmetric part s*q, block scales s [out, blocks], offsets c [out, blocks]).

    Per block, the 16 levels span the block's min..max, as Q4_1's do, with the
    step rounded to a multiple k of S = the channel's largest step / 16; the
    k (1..16) with the least squared error wins, the smallest on a tie. The
    channel's widest block keeps k = 16, so that the HTP, which reads S back
    as the largest block scale / 16, finds the same S.
    """
    import torch

    out_features, in_features = weight.shape
    blocks = weight.detach().to(torch.float64).reshape(out_features, in_features // group_size, group_size)
    low, high = blocks.amin(-1, keepdim=True), blocks.amax(-1, keepdim=True)
    step = ((high - low) / (LEVELS[1] - LEVELS[0])).clamp(min=1e-12)
    middle = (high + low) / 2
    unit = step.amax(1, keepdim=True) / SCALE_STEPS
    widest = step == step.amax(1, keepdim=True)

    def levels_of(scale):
        # The 16 levels are centred on the block: c - 8s .. c + 7s.
        offset = middle + scale / 2
        return torch.clamp(torch.round((blocks - offset) / scale), *LEVELS), offset

    # Only each k's error is kept, and the weights are rounded once more, for
    # the k that wins: no k's rounded copy of the weight outlives its error.
    errors = torch.empty(*step.shape[:2], SCALE_STEPS, dtype=torch.float64)
    for k in range(1, SCALE_STEPS + 1):
        scale = (unit * k).expand_as(step)
        levels, offset = levels_of(scale)
        errors[..., k - 1] = ((offset + levels * scale - blocks) ** 2).sum(-1)
    errors[..., : SCALE_STEPS - 1].masked_fill_(widest, torch.inf)
    # argmin takes the first least error, as a scan that keeps k on a tie does.
    scales = unit * (errors.argmin(-1, keepdim=True) + 1).to(torch.float64)
    levels, offsets = levels_of(scales)
    return (
        (levels * scales).reshape(out_features, in_features).to(weight.dtype),
        scales.squeeze(-1).to(torch.float32),
        offsets.squeeze(-1).to(weight.dtype),
    )


def _offset_linear_class():
    import torch
    from executorch.backends.qualcomm.utils.utils import convert_linear_to_conv2d

    class OffsetLinear(torch.nn.Module):
        """`main` (ExecuTorch's 1x1-conv linear, symmetric weights) plus `offset` over the input's block means."""

        def __init__(self, main, offsets, group_size: int) -> None:
            super().__init__()
            self.main = main
            self.group_size = group_size
            out_features, blocks = offsets.shape
            self.offset = torch.nn.Linear(blocks, out_features, bias=False)
            self.offset.weight = torch.nn.Parameter(offsets * group_size, requires_grad=False)
            # A 1x1 conv like every other linear here: the HTP lowers those.
            convert_linear_to_conv2d(self)

        def forward(self, x):
            means = x.reshape(*x.shape[:-1], -1, self.group_size).mean(-1)
            return self.main(x) + self.offset(means)

    return OffsetLinear


def _is_linear(module) -> bool:
    """ExecuTorch's QNN transforms turn each nn.Linear into a Conv2D module around a 1x1 conv."""
    return type(module).__name__ == "Conv2D" and hasattr(module, "conv")


class BlockOffsets:
    """The source transform: every decoder linear becomes an OffsetLinear; the head is left alone.

    Runs after ExecuTorch's QNN transforms, which turn each linear into a
    1x1 conv. `scales` maps each symmetric weight's name in the model to its
    block scales, for the quantizer (grid_observer.py).
    """

    def __init__(self, group_size: int, head: str = "output") -> None:
        self.group_size = group_size
        self.head = head
        self.scales: dict = {}

    def __call__(self, module):
        offset_linear = _offset_linear_class()
        linears = [(name, child) for name, child in module.named_modules() if name != self.head and _is_linear(child)]
        for name, child in linears:
            weight = child.conv.weight
            out_features, in_features = weight.shape[:2]
            if in_features % self.group_size:
                raise ValueError(f"{name}: {in_features} inputs are not whole blocks of {self.group_size}")
            symmetric, scales, offsets = fit_blocks(weight.reshape(out_features, in_features), self.group_size)
            child.conv.weight.data = symmetric.reshape(weight.shape)
            self.scales[f"{name}.main.conv.weight"] = scales
            owner_path, _, leaf = name.rpartition(".")
            owner = module.get_submodule(owner_path) if owner_path else module
            setattr(owner, leaf, offset_linear(child, offsets, self.group_size))
        return module
