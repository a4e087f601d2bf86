"""The QNN program, run in the HTP simulator, predicts what the CPU reference predicts.

Teacher-forced top-1 agreement over STEPS greedy steps per prompt: the CPU
reference (llama_fp32_xnnpack, itself 0.984 in agreement with Hugging Face's
eager model) greedily generates, the QNN program is fed the same prompt and
tokens, and each step counts whether its argmax is the reference's token.

The simulator emulates the Hexagon NPU instruction by instruction: 15-35 s
per token of SmolLM2 on this 2-core host. So `bazel test //...` runs one
prompt for 8 steps, and the full measurement (two prompts, 32 steps each) is
the manual target //models:llama_int4_qnn_agreement_full_test.
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
PROMPTS = ["The capital of France is", "Once upon a time, there was a little"][: int(os.environ.get("AGREEMENT_PROMPTS", "2"))]
QNN_PTE = os.environ.get("QNN_PTE", "llama_int4_qnn")
# Set from the measurement recorded in the README (see the test log's line).
THRESHOLD = float(os.environ.get("AGREEMENT_THRESHOLD", "0.6"))


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
        agree = total = 0
        for prompt in PROMPTS:
            ids = reference.encode(prompt)
            expected = list(reference.generate(ids, STEPS, stop_at_eos=False))
            logits = qnn.prefill(ids)
            for step, token in enumerate(expected):
                agree += int(torch.argmax(logits)) == token
                total += 1
                if step + 1 < len(expected):
                    logits = qnn.forward([token], len(ids) + step)
            print(f"{prompt!r}: reference {reference.decode(expected)!r}")
        rate = agree / total
        print(f"{QNN_PTE}: teacher-forced top-1 agreement {agree}/{total} = {rate:.3f} (threshold {THRESHOLD})")
        self.assertGreaterEqual(rate, THRESHOLD)


if __name__ == "__main__":
    unittest.main()
