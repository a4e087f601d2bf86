"""The bench's perplexity against an independent computation, on real text.

Hugging Face's eager fp32 SmolLM2 (loaded from the same GGUF) scores each
window in one full-sequence forward with one log-softmax over all positions;
the bench scores the same windows on llama_fp32_xnnpack one token per
forward against the KV cache. fp32 against fp32 they must agree closely: an
off-by-one between logits and targets, a cache that leaks across windows or a
wrong log-softmax moves perplexity by far more than float rounding does.
"""

from __future__ import annotations

import math
import os
import tempfile
import unittest

import torch

from bench.quality.perplexity import QualityError, Score, score_window, window_starts, windows
from tools.executorch.pte_runner import PteSession
from tools.executorch.testing import workspace_file

CONTEXT = 512
WINDOWS = 2
# SmolLM2-135M fp32 on Austen at context 512, measured on this machine over
# whole novels (/work/shared/FACTS.md): 31.9. Two windows of one novel vary
# around that, hence the wide band; a broken scorer lands far outside it.
AUSTEN_PERPLEXITY = 31.9


def hf_scores(token_windows: list[list[int]]) -> list[Score]:
    from runfiles import runfiles
    from transformers import AutoModelForCausalLM

    gguf = runfiles.Create().Rlocation("pypi/models/SmolLM2-135M-Instruct.Q4_1.gguf")
    with tempfile.TemporaryDirectory() as scratch:
        os.symlink(gguf, os.path.join(scratch, "model.gguf"))
        model = AutoModelForCausalLM.from_pretrained(scratch, gguf_file="model.gguf", dtype=torch.float32).eval()
    scores = []
    with torch.no_grad():
        for window in token_windows:
            ids = torch.tensor([window])
            log_probs = torch.log_softmax(model(ids).logits[0].to(torch.float64), dim=-1)
            targets = ids[0, 1:]
            nll = -log_probs[:-1].gather(1, targets[:, None]).sum()
            scores.append(Score(float(nll), len(window) - 1))
    return scores


class WindowTest(unittest.TestCase):
    def test_windows_are_whole_disjoint_and_spread(self) -> None:
        self.assertEqual(window_starts(1000, 100, 4), [0, 200, 500, 700])
        self.assertEqual(window_starts(1000, 100, 10), list(range(0, 1000, 100)))
        self.assertEqual(windows(list(range(10)), 3, 2), [[0, 1, 2], [3, 4, 5]])

    def test_too_many_windows_names_the_fix(self) -> None:
        with self.assertRaisesRegex(QualityError, "lower --windows or --context"):
            window_starts(1000, 512, 2)


class PerplexityTest(unittest.TestCase):
    def test_matches_hugging_face_full_sequence_log_softmax(self) -> None:
        session = PteSession(
            workspace_file("models/llama_fp32_xnnpack.pte"), workspace_file("models/smollm2_135m/tokenizer.json")
        )
        with open(workspace_file(os.environ["EMMA"]), encoding="utf-8") as f:
            ids = session.encode(f.read())
        token_windows = windows(ids, CONTEXT, WINDOWS)
        ours = [score_window(session.forward, w) for w in token_windows]
        theirs = hf_scores(token_windows)
        for index, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            self.assertEqual(a.tokens, CONTEXT - 1)
            self.assertAlmostEqual(a.perplexity / b.perplexity, 1.0, delta=0.01, msg=f"window {index}: {a} vs {b}")
        total = sum(ours, Score(0.0, 0))
        print(f"bench {total.perplexity:.2f}, Hugging Face {sum(theirs, Score(0.0, 0)).perplexity:.2f}")
        self.assertTrue(math.isfinite(total.perplexity))
        self.assertGreater(total.perplexity, 0.6 * AUSTEN_PERPLEXITY)
        self.assertLess(total.perplexity, 1.5 * AUSTEN_PERPLEXITY)


if __name__ == "__main__":
    unittest.main()
