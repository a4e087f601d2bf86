"""The benches' fixed prompt: the same English text, cut to a token count."""

from __future__ import annotations

from collections.abc import Callable, Sequence

TEXT = (
    "It is a truth universally acknowledged, that a single man in possession of a good fortune, "
    "must be in want of a wife. However little known the feelings or views of such a man may be "
)


def fixed_prompt_ids(encode: Callable[[str], Sequence[int]], length: int) -> list[int]:
    """The first `length` ids of TEXT, repeated as often as needed."""
    ids = list(encode(TEXT))
    return (ids * (length // len(ids) + 1))[:length]
