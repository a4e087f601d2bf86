"""Calibration of a QNN program's graphs: passages of a calibration_set, each run from position 0.

The decode graph sees each passage one token per call; a prefill graph sees
it in whole chunks of its length, as the runner feeds a prompt.
"""

from __future__ import annotations

import sys

from tools.executorch.export.errors import ExportError
from tools.executorch.export.passages import load_passages as load_set_passages

# Fewer passages than this leave 16-bit activation ranges set by a handful of
# tokens; outliers seen later then clip.
MIN_PASSAGES = 8


def load_passages(calibration: str, tokenizer_json: str, count: int, max_context_len: int) -> tuple[dict, list]:
    """Returns the calibration_set record and `count` of its passages, at an even stride."""
    if count < MIN_PASSAGES:
        raise ExportError(
            f"calibration_passages={count} is too small to set 16-bit activation ranges; use at least {MIN_PASSAGES}"
        )
    record, chosen = load_set_passages(calibration, tokenizer_json, count)
    longest = max(len(p) for p in chosen)
    if longest > max_context_len:
        raise ExportError(f"a calibration passage has {longest} tokens, more than max_context_len={max_context_len}")
    return record, chosen


def passage_calibrator(passages: list[list[int]], seq_len: int = 1):
    """A calibrate(prepared_module) callback that feeds each passage seq_len tokens per call.

    A passage's tail shorter than seq_len is left out: the observers see only
    what the graph computes on real tokens.
    """

    def calibrate(prepared_module) -> None:
        import torch

        # A one-token step is thousands of tiny observer ops (aminmax per
        # activation): with two threads they cost 15-40x more than with one,
        # measured here, as every op waits on the thread pool. Min/max are
        # exact, so the thread count cannot change the result.
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            with torch.no_grad():
                for number, passage in enumerate(passages):
                    for start in range(0, len(passage) - seq_len + 1, seq_len):
                        prepared_module(
                            torch.tensor([passage[start : start + seq_len]], dtype=torch.long),
                            {"input_pos": torch.arange(start, start + seq_len, dtype=torch.long)},
                        )
                    print(f"calibrated passage {number + 1}/{len(passages)}", file=sys.stderr, flush=True)
        finally:
            torch.set_num_threads(threads)

    return calibrate
