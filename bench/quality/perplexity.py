"""Teacher-forced perplexity of an exported llama program on held-out text.

The exported programs return only the last position's logits, so every
position of a window is one forward of one token against the KV cache: token
t goes in at position t and the logits that come out score token t + 1. Each
window starts again at position 0 (the cache rows past the current position
are masked, so nothing leaks from the previous window).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

# forward(tokens, start_position) -> the last position's logits, as
# tools/executorch/pte_runner.PteSession.forward.
Forward = Callable[[Sequence[int], int], torch.Tensor]


class QualityError(ValueError):
    """Bad settings for the text at hand; the message says what to change."""


@dataclass(frozen=True)
class Score:
    nll: float  # summed negative log-likelihood, nats
    tokens: int  # predictions scored

    @property
    def perplexity(self) -> float:
        return math.exp(self.nll / self.tokens)

    def __add__(self, other: Score) -> Score:
        return Score(self.nll + other.nll, self.tokens + other.tokens)


def window_starts(total_tokens: int, context: int, count: int) -> list[int]:
    """Start offsets of `count` non-overlapping `context`-token windows, spread evenly over the text.

    The text is cut into whole blocks of `context` tokens and every
    (blocks / count)-th block is taken, so the windows sample the whole book
    and the same settings always pick the same windows.
    """
    if context < 2:
        raise QualityError(f"--context={context}: a window needs at least 2 tokens")
    if count < 1:
        raise QualityError(f"--windows={count}: score at least one window")
    blocks = total_tokens // context
    if count > blocks:
        raise QualityError(
            f"the text has {total_tokens} tokens, room for {blocks} windows of {context}, "
            f"but {count} were asked for: lower --windows or --context"
        )
    return [(k * blocks // count) * context for k in range(count)]


def windows(ids: Sequence[int], context: int, count: int) -> list[list[int]]:
    return [list(ids[start : start + context]) for start in window_starts(len(ids), context, count)]


def score_window(forward: Forward, window: Sequence[int]) -> Score:
    """NLL of window[1:] given the tokens before each, one forward per position."""
    nll = 0.0
    for position in range(len(window) - 1):
        logits = forward([window[position]], position)
        log_probs = torch.log_softmax(logits.to(torch.float64), dim=-1)
        nll -= float(log_probs[window[position + 1]])
    return Score(nll, len(window) - 1)
