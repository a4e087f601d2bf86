"""The linux-arm64 build of llm_main, run under qemu, agrees with the host build.

Same .pte, same prompt ids: the first tokens must be identical. (Emulation is
far too slow to time; speed belongs to //bench on a real device.)
"""

from __future__ import annotations

import os
import unittest

from runtime.llm_main_process import generate_ids
from tools.executorch.testing import workspace_file

FIRST_TOKENS = 8
# "<|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n"
PROMPT_IDS = [1, 4093, 198, 1780, 314, 260, 3575, 282, 4649, 47, 2, 198, 1, 520, 9531, 198]


class Arm64QemuTest(unittest.TestCase):
    def test_first_tokens_match_host(self) -> None:
        host = workspace_file("runtime/llm_main")
        arm64 = workspace_file("runtime/llm_main_linux_arm64")
        for name in os.environ["QEMU_PTES"].split(","):
            pte = workspace_file(f"models/{name}.pte")
            with self.subTest(pte=name):
                expected = generate_ids(host, pte, PROMPT_IDS, FIRST_TOKENS)
                emulated = generate_ids(arm64, pte, PROMPT_IDS, FIRST_TOKENS, under_qemu=True)
                self.assertEqual(emulated.stats["platform"], "linux-aarch64")
                self.assertEqual(expected.stats["platform"], "linux-x86_64")
                self.assertEqual(emulated.tokens, expected.tokens)
                print(
                    f"{name}: {FIRST_TOKENS} tokens equal {expected.tokens}; "
                    f"host load {expected.stats['load_ms']:.0f} ms, qemu load {emulated.stats['load_ms']:.0f} ms"
                )


if __name__ == "__main__":
    unittest.main()
