"""Each stage's perplexity beside its speed: a faster stage that answers worse shows at a glance.

A phone runs the very bytes this host built, so each stage's program is
scored here, in ExecuTorch's Python runtime, teacher-forced on one fixed
window of held-out text (bench/perplexity). The figure is for comparing
stages of one run, not for quoting: //bench:quality scores many windows of
two books. A QNN program runs on a host only in the HTP simulator, seconds
per token, so its stage is scored through the quantized graph it was
lowered from (qnn_recipe/rebuilt_graph.py), which the simulator follows on
at least 0.95 of teacher-forced steps; with --noqnn_perplexity the stage
shows n/a.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from bench.device.plan import Variant
from bench.quality.perplexity import score_window, windows
from bench.quality.sessions import open_program
from tools.executorch.export.errors import ExportError
from tools.executorch.pte_runner import PteError


def stage_perplexities(variants: Sequence[Variant], text: str, tokens: int, delegated: bool) -> dict[str, float]:
    """Perplexity per program of the plan on the middle `tokens`-token window of `text`.

    Delegated programs are scored only with `delegated`, and only those with a calibration set.
    """
    scores: dict[str, float] = {}
    window = None
    for variant in variants:
        if variant.unavailable or variant.program in scores:
            continue
        if variant.delegate and not (delegated and variant.calibration):
            continue
        try:
            session = open_program(variant.program, variant.calibration)
        except (ExportError, PteError) as e:
            # The timed runs are done and kept; this stage's column shows n/a.
            print(f"device: no perplexity for {variant.program}: {e}", file=sys.stderr, flush=True)
            continue
        if window is None:
            ids = session.tokenizer.encode(text, add_special_tokens=False).ids
            # One window, from the middle of the book: away from its front matter.
            window = windows(ids[len(ids) // 2 :], tokens, 1)[0]
        scores[variant.program] = score_window(session.forward, window).perplexity
    return scores
