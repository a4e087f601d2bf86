"""llm_main runs QNN programs once ExecuTorch's QNN backend is loaded.

On this host the backend is the wheel's x86-64 one and the NPU is the HTP
simulator in //tools/qnn:sdk's libQnnHtp.so; on a phone the same flag loads
libqnn_executorch_backend.so. The tiny QNN program keeps this fast.

The reference is ExecuTorch's Python runtime running the program's one-token
`forward` only; llm_main prefills with the program's `prefill` method.
"""

from __future__ import annotations

import json
import os
import subprocess
import unittest

from tools.qnn import simulator

simulator.ensure_environment()

from runtime.llm_main_process import generate_ids  # noqa: E402
from tools.executorch.pte_runner import PteSession  # noqa: E402
from tools.python.runfile import runfile  # noqa: E402

PROMPT_IDS = [1, 4093, 198, 1780, 314, 260, 3575, 282]
NEW_TOKENS = 6
BACKEND = runfile("runtime/host_qnn/libexecutorch_backend_qnn.so")
# tiny_qnn's prefill method reads this many tokens per execution (the rule's
# default prefill_length).
PREFILL_LENGTH = 32
TEXT = (
    "It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want "
    "of a wife. However little known the feelings or views of such a man may be on his first entering a "
    "neighbourhood, this truth is so well fixed in the minds of the surrounding families, that he is considered "
    'the rightful property of some one or other of their daughters. "My dear Mr. Bennet," said his lady to him '
    'one day, "have you heard that Netherfield Park is let at last?"'
)


class QnnBackendTest(unittest.TestCase):
    def test_generates_what_the_python_runtime_generates(self):
        pte = runfile("models/tiny_qnn.pte")
        run = generate_ids(
            runfile("runtime/llm_main"), pte, PROMPT_IDS, NEW_TOKENS, extra_flags=[f"--backend_library={BACKEND}"]
        )
        session = PteSession(
            pte, runfile("models/tiny_random/tokenizer.json"), runfile("models/tiny_random/tokenizer_config.json")
        )
        expected = list(session.generate(PROMPT_IDS, NEW_TOKENS, stop_at_eos=False))
        self.assertEqual(run.tokens, expected)
        self.assertEqual(run.stats["generated_tokens"], NEW_TOKENS)
        print(f"tiny_qnn in the HTP simulator: {run.tokens}, decode {run.stats['decode_tokens_per_s']:.1f} tok/s")

    def test_prefill_method_reads_the_prompt_in_chunks(self):
        pte = runfile("models/tiny_qnn.pte")
        session = PteSession(
            pte, runfile("models/tiny_random/tokenizer.json"), runfile("models/tiny_random/tokenizer_config.json")
        )
        ids = session.encode(TEXT)
        # 64 tokens fill two chunks; 70 leave a last chunk of 6, padded.
        for prompt_length in (64, 70):
            with self.subTest(prompt_length=prompt_length):
                prompt, forced = ids[:prompt_length], ids[prompt_length : prompt_length + 7]
                self.assertEqual(len(forced), 7, "TEXT is too short for the test")
                run = generate_ids(
                    runfile("runtime/llm_main"),
                    pte,
                    prompt,
                    len(forced) + 1,
                    extra_flags=[f"--backend_library={BACKEND}", "--force_ids=" + ",".join(map(str, forced))],
                )
                # Teacher-forced, one token per execution of forward.
                logits = session.prefill(prompt)
                expected = [int(logits.argmax())]
                for i, token in enumerate(forced):
                    expected.append(int(session.forward([token], prompt_length + i).argmax()))
                self.assertEqual(run.stats["prefill_calls"], -(-prompt_length // PREFILL_LENGTH))
                self.assertEqual(run.stats["forward_calls"], len(forced))
                self.assertEqual(run.tokens, expected)

    def test_shared_weights_halve_the_program_and_the_simulator_refuses_them(self):
        shared = runfile("models/tiny_qnn_shared.pte")
        with open(shared[: -len(".pte")] + ".manifest.json") as f:
            self.assertTrue(json.load(f)["qnn"]["weightSharing"])
        # Two methods' graphs over one copy of the weights, against a copy
        # each: about half, less the graphs themselves.
        self.assertLess(os.path.getsize(shared), 0.7 * os.path.getsize(runfile("models/tiny_qnn.pte")))
        result = subprocess.run(
            [runfile("runtime/llm_main"), f"--model={shared}", "--prompt_ids=1,2", f"--backend_library={BACKEND}"],
            capture_output=True,
            text=True,
            check=False,
        )
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("x86 HTP simulator cannot", result.stderr)
        self.assertIn("weight_sharing = False", result.stderr)

    def test_without_the_backend_says_how_to_load_it(self):
        result = subprocess.run(
            [runfile("runtime/llm_main"), f"--model={runfile('models/tiny_qnn.pte')}", "--prompt_ids=1,2"],
            capture_output=True,
            text=True,
            check=False,
        )
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("QnnBackend is not registered", result.stderr)
        self.assertIn("--backend_library", result.stderr)

    def test_missing_backend_library_is_a_usage_error(self):
        missing = os.path.join(os.environ.get("TEST_TMPDIR", "/tmp"), "no_such_backend.so")
        result = subprocess.run(
            [
                runfile("runtime/llm_main"),
                f"--model={runfile('models/tiny_qnn.pte')}",
                "--prompt_ids=1,2",
                f"--backend_library={missing}",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn(f"cannot load --backend_library={missing}", result.stderr)


if __name__ == "__main__":
    unittest.main()
