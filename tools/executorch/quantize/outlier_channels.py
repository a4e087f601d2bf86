"""Outlier channels: the few input channels that would set a linear's int8 scale, kept in fp32.

XNNPACK's 4- and 8-bit GEMMs quantize their input to int8 with one scale per
token. A handful of a language model's hidden channels are tens of times
larger than the rest (on SmolLM2-135M one channel of each norm's output
peaks 10-20x above the median channel, and post-SwiGLU activations have
channels a thousand times larger), so that scale is set by them and every
other channel keeps a few of the 256 levels. That rounding is most of the
4-bit programs' loss.

Here the k channels of a linear's input with the largest peaks on
calibration text are taken out of the int8 GEMM and computed in fp32:

    y = W·(x ⊙ keep)      the usual int8-activation GEMM, outliers zeroed
      + W[:, idx]·x[idx]  fp32, with W's exact values in those columns

which is the same linear: the weights are not re-quantized, only the int8
rounding of x changes, now set by the remaining channels. XNNPACK slices no
tensor of symbolic size, so x[idx] is a (k × in) 0/1 linear in fp32. Linears
that read one tensor (q, k and v; gate and up) share one `keep` and one pick,
so that after common-subexpression elimination the graph computes them once
(xnnpack_graph/common_subexpressions.py). An int4 linear folds the fp32 term
into its offset linear (offset_int4.py), so a linear costs the GEMMs it
did.

The channels are chosen from peaks measured in eager PyTorch; a peak is
compared on a grid of 1/64 octave, ties broken by channel index, so that a
last-bit difference between two machines' fp32 arithmetic cannot change the
choice unless a peak sits on a grid line.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn


@dataclass(frozen=True)
class InputPeaks:
    """Per-channel peak |x| of each linear's input, and which linears read the same tensor."""

    peaks: dict[str, torch.Tensor]  # linear's module path -> (in_features,) float32
    groups: list[list[str]]  # linears that always read one tensor, in module order


def measure_input_peaks(model: nn.Module, run: Callable[[], None]) -> InputPeaks:
    """Runs `run` (which feeds calibration text through `model`) and records every nn.Linear's input.

    Two linears belong to one group when every call gave them the same
    tensor object, as q/k/v and gate/up are in a llama block.
    """
    names = {module: name for name, module in model.named_modules() if isinstance(module, nn.Linear)}
    peaks: dict[str, torch.Tensor] = {}
    seen_inputs: dict[str, list[int]] = {name: [] for name in names.values()}
    # A serial number per input tensor object. An id alone is not enough: a
    # freed tensor's id comes back for the next one.
    serials: dict[int, tuple[weakref.ref, int]] = {}
    counter = itertools.count()

    def serial(x: torch.Tensor) -> int:
        known = serials.get(id(x))
        if known is None or known[0]() is not x:
            known = serials[id(x)] = (weakref.ref(x), next(counter))
        return known[1]

    def record(module: nn.Module, inputs: tuple[torch.Tensor, ...]) -> None:
        name = names[module]
        seen_inputs[name].append(serial(inputs[0]))
        x = inputs[0].detach()
        peak = x.abs().reshape(-1, x.shape[-1]).amax(dim=0).to(torch.float32)
        peaks[name] = peak if name not in peaks else torch.maximum(peaks[name], peak)

    hooks = [module.register_forward_pre_hook(record) for module in names]
    try:
        with torch.no_grad():
            run()
    finally:
        for hook in hooks:
            hook.remove()
    missing = [name for name in names.values() if name not in peaks]
    if missing:
        raise ValueError(f"calibration never reached {missing[:3]}{'...' if len(missing) > 3 else ''}")
    groups: dict[tuple[int, ...], list[str]] = {}
    for name in names.values():
        groups.setdefault(tuple(seen_inputs[name]), []).append(name)
    return InputPeaks(peaks, list(groups.values()))


def largest_channels(peak: torch.Tensor, k: int) -> torch.Tensor:
    """The k channels with the largest peaks, in increasing index order (see the module docstring)."""
    k = min(k, peak.numel())
    grid = torch.round(torch.log2(peak.clamp(min=1e-30)) * 64)
    # Stable sort of the negated grid: equal grid values keep index order.
    order = torch.sort(-grid, stable=True).indices
    return torch.sort(order[:k]).values


@dataclass(frozen=True)
class Outliers:
    """One input's outlier channels, as the linears that read it use them; keep and pick are shared."""

    channels: list[int]
    keep: nn.Parameter  # (in,) 0 at the outlier channels, 1 elsewhere
    pick: nn.Parameter  # (k, in) 0/1: row i takes channels[i]

    @staticmethod
    def of(in_features: int, channels: list[int]) -> Outliers:
        index = torch.tensor(channels, dtype=torch.long)
        keep = torch.ones(in_features)
        keep[index] = 0
        pick = torch.zeros(len(channels), in_features)
        pick[torch.arange(len(channels)), index] = 1
        return Outliers(
            list(channels), nn.Parameter(keep, requires_grad=False), nn.Parameter(pick, requires_grad=False)
        )


class OutlierChannels(nn.Module):
    """`inner`(x ⊙ keep) + x[channels]·weight[:, channels]ᵀ in fp32, for a linear with no offset term of its own.

    `weight` holds the exact values `inner` computes with (after its own
    quantization), so the sum is `inner`'s linear with fp32 outlier channels.
    The int8 output head takes this form; OffsetInt4Linear folds the same
    term into its offset linear.
    """

    def __init__(self, inner: nn.Module, weight: torch.Tensor, outliers: Outliers) -> None:
        super().__init__()
        self.inner = inner
        self.keep = outliers.keep
        self.pick = outliers.pick
        index = torch.tensor(outliers.channels, dtype=torch.long)
        self.side = nn.Parameter(weight.detach().to(torch.float32)[:, index].contiguous(), requires_grad=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.inner(x * self.keep) + nn.functional.linear(nn.functional.linear(x, self.pick), self.side)


ChannelSet = tuple[list[str], list[int]]  # (linears that read one tensor, its outlier channels)


def choose_channel_sets(input_peaks: InputPeaks, k: int) -> list[ChannelSet]:
    """Each group of linears with the k largest-peak channels of the input they share."""
    sets = []
    for group in input_peaks.groups:
        peak = torch.stack([input_peaks.peaks[name] for name in group]).amax(dim=0)
        sets.append((list(group), largest_channels(peak, k).tolist()))
    return sets
