"""The Hugging Face fixtures' NPU programs, run in the HTP simulator, compute
what their quantized graphs compute in PyTorch.

Each program's quantized graph is rebuilt as export_qnn built it
(qnn_recipe/quantized_graph.py: the same checkpoint, calibration passages,
scheme and SoC, read back from the program's manifest). The graph decodes a
prompt greedily; the program is fed the same prompt and tokens, and each
step counts whether its argmax is the graph's token. The graph is what the
HTP is asked to compute, so what is left is the HTP's own arithmetic (its
fixed-point requantization, LPBQ scale rounding) and the lowering.

The gate, from what an NPU program must keep of its graph: top-1 agreement
at least 0.95 on teacher-forced steps.
"""

from __future__ import annotations

import json
import unittest

from tools.qnn import simulator

simulator.ensure_environment()

import torch  # noqa: E402

from tools.executorch.export.special_tokens import load_special_tokens  # noqa: E402
from tools.executorch.pte_runner import PteSession  # noqa: E402
from tools.executorch.qnn_recipe import calibration, quantized_graph  # noqa: E402
from tools.executorch.qnn_recipe.llm_config import qnn_llm_config  # noqa: E402
from tools.executorch.testing import workspace_file  # noqa: E402

FAMILIES = ("llama3", "qwen2_5")
PROMPT = "The capital of France is"
STEPS = 24
THRESHOLD = 0.95


def graph_of(family: str) -> tuple[quantized_graph.QuantizedGraph, str]:
    """The fixture program's quantized graph, and its tokenizer.json."""
    folder = workspace_file(f"models/{family}_tiny/params.json").rsplit("/", 1)[0]
    tokenizer, tokenizer_config = f"{folder}/tokenizer.json", f"{folder}/tokenizer_config.json"
    with open(workspace_file(f"models/{family}_tiny_qnn.manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    qnn, config = manifest["qnn"], manifest["config"]
    _, passages = calibration.load_passages(
        workspace_file(f"models/{family}_tiny_calibration.json"),
        tokenizer,
        qnn["calibration"]["passages"],
        config["maxContextLen"],
    )
    torch.manual_seed(0)
    llm_config = qnn_llm_config(
        f"{folder}/checkpoint.pth",
        f"{folder}/params.json",
        tokenizer,
        load_special_tokens(tokenizer, tokenizer_config).runtime_metadata(),
        config["maxContextLen"],
        qnn["soc"],
    )
    builder = quantized_graph.quantize(llm_config, passages, qnn["soc"], qnn["quantize"], config.get("groupSize", 0))
    return quantized_graph.QuantizedGraph(builder), tokenizer


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
