"""The QNN program, run in the HTP simulator, predicts what the CPU reference predicts.

Teacher-forced agreement over STEPS greedy steps per prompt: the CPU
reference (llama_fp32_xnnpack, itself 0.984 in agreement with Hugging Face's
eager model) greedily generates, the QNN program is fed the same prompt and
tokens, and each step counts whether its argmax is the reference's token
(top-1) and whether the reference's token is among its five best (top-5).

The thresholds come from llama_int4 (8da4w, XNNPACK) on the same prompts, 32
steps each: top-1 34/64 = 0.53, top-5 59/64 = 0.92. SmolLM2's continuations
of these plain prompts are full of near-ties, which any 4-bit program flips,
so top-1 alone is a weak signal; top-5 separates a right int4 program from a
broken one (before the recipe in README "Qualcomm NPU", QNN agreed on 2/32).

The simulator emulates the Hexagon NPU instruction by instruction: 8-35 s
per token of SmolLM2 on this 2-core host, about 13 minutes for the 64 steps.
"""

from __future__ import annotations

import os
import unittest

from tools.qnn import simulator

simulator.ensure_environment()

import torch  # noqa: E402

from tools.executorch.pte_runner import PteSession  # noqa: E402
from tools.python.runfile import runfile  # noqa: E402

STEPS = int(os.environ.get("AGREEMENT_STEPS", "32"))
# Plain text rather than the chat template: its 30-token system preamble
# would cost more simulator time than the steps being measured.
PROMPTS = ["The capital of France is", "Once upon a time, there was a little"][
    : int(os.environ.get("AGREEMENT_PROMPTS", "2"))
]
QNN_PTE = os.environ.get("QNN_PTE", "llama_int4_qnn")
# Below llama_int4's 0.53 / 0.92 (see above), with room for sampling noise
# over few steps.
THRESHOLD = float(os.environ.get("AGREEMENT_THRESHOLD", "0.4"))
TOP5_THRESHOLD = float(os.environ.get("TOP5_THRESHOLD", "0.75"))


def session(name: str) -> PteSession:
    return PteSession(
        runfile(f"models/{name}.pte"),
        runfile("models/smollm2_135m/tokenizer.json"),
        runfile("models/smollm2_135m/tokenizer_config.json"),
    )


class QnnAgreementTest(unittest.TestCase):
    def test_teacher_forced_top1_agreement(self):
        reference = session("llama_fp32_xnnpack")
        qnn = session(QNN_PTE)
        self.assertEqual(qnn.limits.max_seq_len, 1, "QNN programs take one token per call (static shapes)")
        agree = top5 = total = 0
        for prompt in PROMPTS:
            ids = reference.encode(prompt)
            expected = list(reference.generate(ids, STEPS, stop_at_eos=False))
            logits = qnn.prefill(ids)
            for step, token in enumerate(expected):
                agree += int(torch.argmax(logits)) == token
                top5 += token in torch.topk(logits.reshape(-1), 5).indices.tolist()
                total += 1
                if step + 1 < len(expected):
                    logits = qnn.forward([token], len(ids) + step)
            print(f"{prompt!r}: reference {reference.decode(expected)!r}")
        print(
            f"{QNN_PTE}: teacher-forced top-1 agreement {agree}/{total} = {agree / total:.3f} "
            f"(threshold {THRESHOLD}), top-5 {top5}/{total} = {top5 / total:.3f} (threshold {TOP5_THRESHOLD})"
        )
        self.assertGreaterEqual(agree / total, THRESHOLD)
        self.assertGreaterEqual(top5 / total, TOP5_THRESHOLD)


if __name__ == "__main__":
    unittest.main()
