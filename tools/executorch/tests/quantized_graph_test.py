"""A QNN program's quantized graph, rebuilt from its manifest, computes a session in the program's place.

//bench:quality scores the NPU program this way: the program gives its
limits and constants, the graph its logits. On the tiny fixture:
- the session decodes what stepping the graph by hand decodes;
- folding the weights' dequantization into constants changes no logit;
- a wrong program or a calibration set of another model is refused, with
  the fix in the message.
"""

from __future__ import annotations

import unittest

from tools.qnn import simulator

simulator.ensure_environment()

import torch  # noqa: E402

from tools.executorch.export.errors import ExportError  # noqa: E402
from tools.executorch.pte_runner import PteSession  # noqa: E402
from tools.executorch.qnn_recipe import rebuilt_graph  # noqa: E402
from tools.executorch.testing import workspace_file  # noqa: E402

PROGRAM = "models/tiny_qnn.pte"
CALIBRATION = "models/tiny_calibration.json"
TOKENIZER = "models/tiny_random/tokenizer.json"


class QuantizedGraphTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.graph = rebuilt_graph.rebuild(workspace_file(PROGRAM), workspace_file(CALIBRATION))

    def test_a_session_computed_by_the_graph_decodes_what_the_graph_does(self):
        session = PteSession(
            workspace_file(PROGRAM), workspace_file(TOKENIZER), computed_by=rebuilt_graph.forward_of(self.graph)
        )
        self.assertEqual(session.limits.max_seq_len, 1)
        self.assertEqual(session.limits.max_context_len, 128)
        prompt = session.encode("It is a truth universally acknowledged")
        replied = session.greedy(prompt, 12)

        by_hand, logits = [], self.graph.prefill(prompt)
        for step in range(12):
            by_hand.append(int(torch.argmax(logits)))
            logits = self.graph.forward(by_hand[-1], len(prompt) + step)
        self.assertEqual(replied, by_hand)

    def test_folding_the_weights_dequantization_changes_no_logit(self):
        unfolded = rebuilt_graph.rebuild(workspace_file(PROGRAM), workspace_file(CALIBRATION), fold_constants=False)
        prompt = [1, 500, 1200, 77, 9000, 31]
        for position, token in enumerate(prompt):
            self.assertTrue(torch.equal(self.graph.forward(token, position), unfolded.forward(token, position)))

    def test_a_program_that_is_not_qnn_is_refused(self):
        with self.assertRaisesRegex(ExportError, "not a QNN program"):
            rebuilt_graph.rebuild(workspace_file("models/tiny_int4.pte"), workspace_file(CALIBRATION))

    def test_another_models_calibration_set_is_refused(self):
        with self.assertRaisesRegex(ExportError, "calibration_set whose model is this program's model"):
            rebuilt_graph.rebuild(workspace_file(PROGRAM), workspace_file("models/llama3_tiny_calibration.json"))


if __name__ == "__main__":
    unittest.main()
