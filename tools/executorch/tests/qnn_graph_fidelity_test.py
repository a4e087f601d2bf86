"""The Hugging Face fixtures' NPU programs, run in the HTP simulator, compute
what their quantized graphs compute in PyTorch.

Each program's quantized graph is rebuilt as export_qnn built it
(qnn_recipe/rebuilt_graph.py: the same checkpoint, calibration passages,
scheme and SoC, read back from the program's manifest). The graph decodes a
prompt greedily; the program is fed the same prompt and tokens, and each
step counts whether its argmax is the graph's token. The graph is what the
HTP is asked to compute, so what is left is the HTP's own arithmetic (its
fixed-point requantization, LPBQ scale rounding) and the lowering.

The gate, from what an NPU program must keep of its graph: top-1 agreement
at least 0.95 on teacher-forced steps.
"""

from __future__ import annotations

import unittest

from tools.qnn import simulator

simulator.ensure_environment()

import torch  # noqa: E402

from tools.executorch.pte_runner import PteSession  # noqa: E402
from tools.executorch.qnn_recipe import quantized_graph, rebuilt_graph  # noqa: E402
from tools.executorch.testing import workspace_file  # noqa: E402

FAMILIES = ("llama3", "qwen2_5")
PROMPT = "The capital of France is"
STEPS = 24
THRESHOLD = 0.95


def graph_of(family: str) -> tuple[quantized_graph.QuantizedGraph, str]:
    """The fixture program's quantized graph, and its tokenizer.json."""
    graph = rebuilt_graph.rebuild(
        workspace_file(f"models/{family}_tiny_qnn.pte"), workspace_file(f"models/{family}_tiny_calibration.json")
    )
    return graph, workspace_file(f"models/{family}_tiny/tokenizer.json")


class QnnGraphFidelityTest(unittest.TestCase):
    def test_the_simulated_program_follows_its_quantized_graph(self):
        for family in FAMILIES:
            with self.subTest(family=family):
                graph, tokenizer = graph_of(family)
                program = PteSession(workspace_file(f"models/{family}_tiny_qnn.pte"), tokenizer)
                prompt = program.encode(PROMPT)
                expected, logits = [], graph.prefill(prompt)
                for step in range(STEPS):
                    expected.append(int(torch.argmax(logits)))
                    logits = graph.forward(expected[-1], len(prompt) + step)
                agree, logits = 0, program.prefill(prompt)
                for step, token in enumerate(expected):
                    agree += int(torch.argmax(logits)) == token
                    if step + 1 < len(expected):
                        logits = program.forward([token], len(prompt) + step)
                print(f"{family}_tiny_qnn: top-1 agreement with its quantized graph {agree}/{STEPS}")
                self.assertGreaterEqual(agree / STEPS, THRESHOLD)


if __name__ == "__main__":
    unittest.main()
