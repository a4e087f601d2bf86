"""The chat prompt set (chat_prompts.json) and greedy replies to it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

# Long enough for a loop to show, short enough that a program in the QNN
# simulator can still answer a few prompts.
REPLY_TOKENS = 48


@dataclass(frozen=True)
class ChatPrompt:
    text: str
    expect: str | None  # a word the reply must contain, for factual prompts


def load_prompts(path: str) -> list[ChatPrompt]:
    with open(path) as f:
        return [ChatPrompt(p["text"], p.get("expect")) for p in json.load(f)["prompts"]]


def greedy_replies(session, prompts: Sequence[ChatPrompt], max_new_tokens: int = REPLY_TOKENS) -> list[list[int]]:
    """Each prompt through the chat template, answered greedily until end of turn or the limit.

    `session` is a tools/executorch/pte_runner.PteSession.
    """
    return [session.greedy(ids, max_new_tokens) for ids in prompt_ids(session, prompts)]


def prompt_ids(session, prompts: Sequence[ChatPrompt]) -> list[list[int]]:
    """Each prompt's token ids through the session's chat template."""
    return [session.encode(session.chat_prompt(p.text)) for p in prompts]
