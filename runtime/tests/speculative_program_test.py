"""Speculative decoding on exported programs, through llm_main: the greedy
tokens are plain decoding's, and on a reply that quotes its prompt the
drafts are accepted and the forward calls fewer. Drafts come from the prompt
or from a draft program with the same tokenizer.

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
    def run_main(self, program: str, prompt: str, *flags: str) -> tuple[subprocess.CompletedProcess, dict | None]:
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
                    f"--stats_json={stats_path}",
                    *flags,
                ],
                capture_output=True,
                text=True,
                timeout=600,
            )
            stats = None
            if os.path.exists(stats_path):
                with open(stats_path) as f:
                    stats = json.load(f)
        return result, stats

    def generate(self, program: str, prompt: str, speculative: str, draft: str = "") -> tuple[list[int], dict]:
        flags = [f"--speculative={speculative}"]
        if draft:
            flags.append(f"--draft_model={workspace_file(f'models/{draft}.pte')}")
        result, stats = self.run_main(program, prompt, *flags)
        self.assertEqual(result.returncode, 0, result.stderr)
        return [int(t) for t in result.stdout.split()], stats

    def check(self, program: str, prompt: str, draft: str = "") -> tuple[dict, dict]:
        mode = "draft" if draft else "prompt_lookup"
        plain, plain_stats = self.generate(program, prompt, "off")
        fast, stats = self.generate(program, prompt, mode, draft)
        self.assertGreater(len(plain), 8)
        self.assertEqual(fast, plain, f"{program}: speculative decoding changed the greedy tokens")
        self.assertEqual(stats["stop_reason"], plain_stats["stop_reason"])
        self.assertEqual(stats["speculation"], mode)
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

    def test_a_draft_program(self) -> None:
        # The same random weights in fp32: its greedy tokens are mostly the
        # int4 program's, so drafts are accepted. On portable kernels a draft
        # step costs as much as a target step, so the governor may pause
        # drafting; how many are accepted is the bench's to measure.
        _, stats = self.check("tiny_int4", "a b c d e f g", draft="tiny_fp32")
        self.assertGreater(stats["accepted_tokens"], 0, stats)
        self.assertGreaterEqual(stats["draft_model_calls"], stats["draft_calls"], stats)

    def test_the_drafted_chat_runs_with_its_draft(self) -> None:
        # llm_chat's launcher, as `bazel run //models:tiny_int4_drafted_chat`
        # runs it, from the runfiles root.
        with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as tmp:
            stats_path = os.path.join(tmp, "stats.json")
            result = subprocess.run(
                [
                    workspace_file("models/tiny_int4_drafted_chat.sh"),
                    "--prompt=a b c d e f g",
                    "--max_new_tokens=32",
                    "--threads=1",
                    f"--stats_json={stats_path}",
                ],
                capture_output=True,
                text=True,
                timeout=600,
            )
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(stats_path) as f:
                stats = json.load(f)
        self.assertEqual(stats["speculation"], "draft")
        self.assertGreater(stats["draft_calls"], 0, stats)

    def test_a_draft_that_disagrees_changes_no_token(self) -> None:
        # SmolLM2-135M drafted by random weights with its tokenizer: the
        # drafts are wrong, the reply is still the target's own.
        self.check("llama_int4", f"Summarize this sentence: {PARAGRAPH}", draft="tiny_int4")

    def test_a_draft_with_another_vocabulary_is_refused(self) -> None:
        result, _ = self.run_main(
            "tiny_int4",
            "hello",
            "--speculative=draft",
            f"--draft_model={workspace_file('models/llama3_tiny_int4.pte')}",
        )
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("a draft proposes token ids, so pair programs exported with the same tokenizer", result.stderr)

    def test_draft_mode_and_its_program_go_together(self) -> None:
        result, _ = self.run_main("tiny_int4", "hello", "--speculative=draft")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("--speculative=draft needs --draft_model", result.stderr)
        # llm_chat's launcher passes both; a later --speculative=off wins.
        result, stats = self.run_main(
            "tiny_int4",
            "hello",
            "--speculative=draft",
            f"--draft_model={workspace_file('models/tiny_fp32.pte')}",
            "--speculative=off",
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("--draft_model is not loaded: it drafts only with --speculative=draft", result.stderr)
        self.assertEqual(stats["speculation"], "off")


if __name__ == "__main__":
    unittest.main()
