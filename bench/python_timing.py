"""One timed generation under ExecuTorch's Python runtime, shared by the benches."""

from __future__ import annotations

import time
from collections.abc import Sequence

from bench.fixed_prompt import fixed_prompt_ids
from tools.executorch.pte_runner import PteSession


def timed_generation(
    paths: tuple[str, str, str], ids: Sequence[int] | None, prompt_tokens: int, new_tokens: int
) -> dict:
    """Loads the program in a new session and generates greedily, EOS ignored.

    `ids` None means the fixed prompt (bench/fixed_prompt.py) of `prompt_tokens` ids. Returns load_ms,
    ttft_ms (prompt in -> first token), decode_tok_s and the tokens.
    """
    started = time.perf_counter()
    session = PteSession(*paths)
    loaded = time.perf_counter()
    if ids is None:
        ids = fixed_prompt_ids(session.encode, prompt_tokens)
    first = None
    tokens = []
    for token in session.generate(ids, new_tokens, stop_at_eos=False):
        tokens.append(token)
        if first is None:
            first = time.perf_counter()
    done = time.perf_counter()
    return {
        "load_ms": 1e3 * (loaded - started),
        "ttft_ms": 1e3 * (first - loaded),
        "decode_tok_s": (len(tokens) - 1) / (done - first),
        "tokens": tokens,
    }
