"""Speculative decoding on exported programs, through llm_main: the greedy
tokens are plain decoding's, and on a reply that quotes its prompt the
drafts are accepted and the forward calls fewer.

The programs are real exports (tiny_int4: random weights; llama_int4:
SmolLM2-135M), whose forward takes the rows input (logit_rows = 8)."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import unittest

from tools.executorch.testing import workspace_file

PARAGRAPH = (
    "Sir Walter Elliot, of Kellynch Hall, in Somersetshire, was a man who, for his own amusement, never took up "
    "any book but the Baronetage; there he found occupation for an idle hour, and consolation in a distressed one."
)


class SpeculativeProgramTest(unittest.TestCase):
    def generate(self, program: str, prompt: str, speculative: str) -> tuple[list[int], dict]:
        with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as tmp:
            stats_path = os.path.join(tmp, "stats.json")
            result = subprocess.run(
                [
                    workspace_file("runtime/llm_main"),
                    f"--model={workspace_file(f'models/{program}.pte')}",
                    f"--tokenizer={workspace_file('tokenizer/runtime/smollm2.tok')}",
                    f"--prompt={prompt}",
                    "--max_new_tokens=64",
                    "--print_ids",
                    "--threads=1",
                    f"--speculative={speculative}",
                    f"--stats_json={stats_path}",
                ],
                capture_output=True,
                text=True,
                timeout=600,
            )
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(stats_path) as f:
                stats = json.load(f)
        return [int(t) for t in result.stdout.split()], stats

    def check(self, program: str, prompt: str) -> tuple[dict, dict]:
        plain, plain_stats = self.generate(program, prompt, "off")
        fast, stats = self.generate(program, prompt, "prompt_lookup")
        self.assertGreater(len(plain), 8)
        self.assertEqual(fast, plain, f"{program}: speculative decoding changed the greedy tokens")
        self.assertEqual(stats["stop_reason"], plain_stats["stop_reason"])
        self.assertEqual(stats["speculation"], "prompt_lookup")
        self.assertEqual(plain_stats["draft_calls"], 0)
        # Each forward call gives its accepted drafts and one token of its own.
        self.assertLessEqual(stats["forward_calls"] + stats["accepted_tokens"], plain_stats["forward_calls"] + 1)
        return plain_stats, stats

    def test_random_weights(self) -> None:
        self.check("tiny_int4", "one two three one two three one two three one two")

    def test_a_reply_that_quotes_its_prompt(self) -> None:
        plain, stats = self.check("llama_int4", f"Repeat this sentence word for word: {PARAGRAPH}")
        self.assertGreater(stats["accepted_tokens"], 20, stats)
        self.assertLess(stats["forward_calls"], plain["forward_calls"] / 2, stats)


if __name__ == "__main__":
    unittest.main()
