"""llm_main runs QNN programs once ExecuTorch's QNN backend is loaded.

On this host the backend is the wheel's x86-64 one and the NPU is the HTP
simulator in //tools/qnn:sdk's libQnnHtp.so; on a phone the same flag loads
libqnn_executorch_backend.so. The tiny QNN program keeps this fast.
"""

from __future__ import annotations

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
