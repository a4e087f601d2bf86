"""What a greedy, free-running reply says about a program's health.

A teacher-forced test feeds the reference's tokens back in, so one wrong
token never derails the next. Users get the free-running reply: a program
whose weights are slightly off can drift into a loop of one token, and only
letting it run shows that. Two kinds of figures, both per reply:

- degeneration, from the reply alone: the share of its tokens that are
  distinct, and the longest run of one repeated token;
- agreement with the reference's reply to the same prompt: the common prefix
  (where the two first part ways) and the bag-of-tokens overlap (how much of
  the same vocabulary the rest of the reply uses, in any order).
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from dataclasses import dataclass


def distinct_share(tokens: Sequence[int]) -> float:
    """Distinct tokens / tokens; 1.0 for an empty reply (nothing repeated)."""
    return len(set(tokens)) / len(tokens) if tokens else 1.0


def longest_run(tokens: Sequence[int]) -> int:
    """Length of the longest stretch of one token repeated back to back."""
    best = run = 0
    previous = None
    for token in tokens:
        run = run + 1 if token == previous else 1
        previous = token
        best = max(best, run)
    return best


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    # zip stops at the shorter reply: a prefix cannot outrun either.
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def overlap(reply: Sequence[int], reference: Sequence[int]) -> float:
    """Bag-of-tokens F1 between two replies (1.0 when both are empty)."""
    if not reply and not reference:
        return 1.0
    shared = sum((collections.Counter(reply) & collections.Counter(reference)).values())
    return 2.0 * shared / (len(reply) + len(reference))


@dataclass(frozen=True)
class Degeneration:
    """Limits past which a reply counts as degenerate."""

    min_distinct_share: float
    max_run: int

    def check(self, tokens: Sequence[int]) -> list[str]:
        """Why `tokens` is degenerate, or [] when it is not."""
        problems = []
        if longest_run(tokens) > self.max_run:
            problems.append(f"one token repeated {longest_run(tokens)} times in a row (limit {self.max_run})")
        # Short replies ("Paris.") are trivially diverse; the share only
        # means something once a reply is long enough to loop.
        if len(tokens) >= 16 and distinct_share(tokens) < self.min_distinct_share:
            problems.append(
                f"only {distinct_share(tokens):.2f} of its tokens distinct (limit {self.min_distinct_share})"
            )
        return problems


# fp32 SmolLM2's healthy replies to the prompt set keep at least ~0.45 of
# their tokens distinct and never repeat one token more than twice in a row;
# a collapsed reply ("₱₱₱…", "1.1.1.1…") is far below 0.3.
LIMITS = Degeneration(min_distinct_share=0.3, max_run=4)


@dataclass(frozen=True)
class ReplyScore:
    prompt: str
    tokens: int
    distinct_share: float
    longest_run: int
    common_prefix: int
    overlap: float
    degenerate: tuple[str, ...]


def score_reply(prompt: str, reply: Sequence[int], reference: Sequence[int], limits: Degeneration) -> ReplyScore:
    return ReplyScore(
        prompt=prompt,
        tokens=len(reply),
        distinct_share=distinct_share(reply),
        longest_run=longest_run(reply),
        common_prefix=common_prefix(reply, reference),
        overlap=overlap(reply, reference),
        degenerate=tuple(limits.check(reply)),
    )
