"""The QNN program, run in the HTP simulator, predicts what fp32 predicts and computes what its graph computes.

Teacher-forced agreement over STEPS greedy steps per prompt: the CPU
reference (llama_fp32_xnnpack, itself 0.984 in agreement with Hugging Face's
eager model) greedily generates, and the QNN program is fed the same prompt
and tokens. Each step counts whether the program's argmax is the reference's
token (top-1), whether the reference's token is among its five best (top-5),
and whether its argmax is its quantized graph's, fed the same tokens
(qnn_recipe/rebuilt_graph.py).

The thresholds are the NPU program's goal, set before the recipe they judge
was measured: top-1 with fp32 at least 0.85, with its own graph at least
0.95 (what lowering and the HTP's arithmetic may cost), and top-5 at least
0.92, what ExecuTorch's stock 8da4w CPU program scored here (59/64).

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
from tools.executorch.qnn_recipe import rebuilt_graph  # noqa: E402
from tools.python.runfile import runfile  # noqa: E402

STEPS = int(os.environ.get("AGREEMENT_STEPS", "32"))
# Plain text rather than the chat template: its 30-token system preamble
# would cost more simulator time than the steps being measured.
PROMPTS = ["The capital of France is", "Once upon a time, there was a little"][
    : int(os.environ.get("AGREEMENT_PROMPTS", "2"))
]
QNN_PTE = os.environ.get("QNN_PTE", "llama_int4_qnn")
THRESHOLD = 0.85
TOP5_THRESHOLD = 0.92
GRAPH_THRESHOLD = 0.95


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
        graph = rebuilt_graph.rebuild(runfile(f"models/{QNN_PTE}.pte"), runfile("models/smollm2_calibration.json"))
        agree = top5 = with_graph = total = 0
        for prompt in PROMPTS:
            ids = reference.encode(prompt)
            expected = list(reference.generate(ids, STEPS, stop_at_eos=False))
            logits, graph_logits = qnn.prefill(ids), graph.prefill(ids)
            for step, token in enumerate(expected):
                agree += int(torch.argmax(logits)) == token
                top5 += token in torch.topk(logits.reshape(-1), 5).indices.tolist()
                with_graph += int(torch.argmax(logits)) == int(torch.argmax(graph_logits))
                total += 1
                if step + 1 < len(expected):
                    logits = qnn.forward([token], len(ids) + step)
                    graph_logits = graph.forward(token, len(ids) + step)
            print(f"{prompt!r}: reference {reference.decode(expected)!r}")
        print(
            f"{QNN_PTE}: teacher-forced top-1 agreement {agree}/{total} = {agree / total:.3f} "
            f"(threshold {THRESHOLD}), top-5 {top5}/{total} = {top5 / total:.3f} (threshold {TOP5_THRESHOLD}), "
            f"with its quantized graph {with_graph}/{total} = {with_graph / total:.3f} (threshold {GRAPH_THRESHOLD})"
        )
        self.assertGreaterEqual(agree / total, THRESHOLD)
        self.assertGreaterEqual(top5 / total, TOP5_THRESHOLD)
        self.assertGreaterEqual(with_graph / total, GRAPH_THRESHOLD)


if __name__ == "__main__":
    unittest.main()
