"""Each stage's perplexity beside its speed: a faster stage that answers worse shows at a glance.

A phone runs the very bytes this host built, so each stage's program is
scored here, in ExecuTorch's Python runtime, teacher-forced on one fixed
window of held-out text (bench/perplexity). The figure is for comparing
stages of one run, not for quoting: //bench:quality scores many windows of
two books. A QNN program runs on a host only in the HTP simulator, seconds
per token, so its stage shows n/a.
"""

from __future__ import annotations

from collections.abc import Sequence

from bench.device.plan import Variant
from bench.quality.perplexity import score_window, windows
from models.programs import resolve
from tools.executorch.pte_runner import PteSession


def stage_perplexities(variants: Sequence[Variant], text: str, tokens: int) -> dict[str, float]:
    """Perplexity per program of the plan on the middle `tokens`-token window of `text`; QNN programs left out."""
    scores: dict[str, float] = {}
    window = None
    for variant in variants:
        if variant.delegate or variant.unavailable or variant.program in scores:
            continue
        session = PteSession(*resolve(variant.program))
        if window is None:
            ids = session.tokenizer.encode(text, add_special_tokens=False).ids
            # One window, from the middle of the book: away from its front matter.
            window = windows(ids[len(ids) // 2 :], tokens, 1)[0]
        scores[variant.program] = score_window(session.forward, window).perplexity
    return scores
