"""llm_main --interactive as a user meets it: turns piped on stdin, replies on
stdout (nothing else), one stats line per turn, the KV cache reused from turn
to turn, /stats and /reset, and both context policies when a turn does not
fit."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import unittest

from tools.executorch.testing import workspace_file

QUESTIONS = ["What is the capital of France?", "What river runs through it?", "Name one museum there."]


class LlmMainInteractiveTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))

    def chat(self, lines: list[str], *flags: str) -> tuple[subprocess.CompletedProcess, list[dict]]:
        stats = os.path.join(self.tmp, "turns.jsonl")
        result = subprocess.run(
            [
                workspace_file("runtime/llm_main"),
                # Both spellings: --flag value and --flag=value.
                "--model",
                workspace_file("models/llama_int4.pte"),
                f"--tokenizer={workspace_file('tokenizer/runtime/smollm2.tok')}",
                "--interactive",
                "--max_new_tokens",
                "12",
                "--threads=2",
                f"--stats_json={stats}",
                *flags,
            ],
            input="".join(line + "\n" for line in lines),
            capture_output=True,
            text=True,
            timeout=600,
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(stats) as f:
            return result, [json.loads(line) for line in f]

    def one_shot(self, question: str) -> str:
        result = subprocess.run(
            [
                workspace_file("runtime/llm_main"),
                f"--model={workspace_file('models/llama_int4.pte')}",
                f"--tokenizer={workspace_file('tokenizer/runtime/smollm2.tok')}",
                f"--prompt={question}",
                "--max_new_tokens=12",
                "--threads=2",
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(result.stdout.strip(), result.stderr)
        return result.stdout.rstrip("\n")

    def test_three_turns_reuse_the_cache(self) -> None:
        result, turns = self.chat([*QUESTIONS, "/stats", "/reset", QUESTIONS[2], "/quit", "never read"])
        self.assertEqual(len(turns), 4)
        self.assertEqual(turns[0]["reused_tokens"], 0)
        self.assertEqual(turns[0]["prefilled_tokens"], turns[0]["prompt_tokens"])
        for previous, turn in zip(turns[:2], turns[1:3], strict=True):
            # Everything but the new question (and the last reply's closing tokens) comes from the cache.
            self.assertGreaterEqual(turn["reused_tokens"], previous["prompt_tokens"])
            self.assertLess(turn["prefilled_tokens"], 30)
            self.assertEqual(turn["reused_tokens"] + turn["prefilled_tokens"], turn["prompt_tokens"])
            self.assertEqual(turn["decode_allocations"], 0)
        # After /reset: a new conversation, prefilled from scratch.
        self.assertEqual(turns[3]["reused_tokens"], 0)
        self.assertLess(turns[3]["prompt_tokens"], turns[2]["prompt_tokens"])

        # stdout: the replies, a line each, and the /stats line; no prompt
        # marker (stdin is not a terminal) and no log lines.
        self.assertNotIn("> ", result.stdout[:2])
        self.assertNotIn("llm_main:", result.stdout)
        # The first turn is the one-shot reply to the same question: the
        # same prompt, greedy. (Its words are not checked: "Paris" or a near
        # tie to "L'Étoile" depends on which kernels XNNPACK picks for the
        # host's instruction set.)
        self.assertEqual(result.stdout.splitlines()[0], self.one_shot(QUESTIONS[0]))
        self.assertRegex(result.stdout, r"turn 3: \d+ prompt tokens \(\d+ reused, \d+ prefilled\), TTFT")
        self.assertIn("(new conversation)", result.stderr)
        self.assertIn("/reset starts over", result.stderr)

    def test_a_turn_that_does_not_fit(self) -> None:
        # 2000 of the 2048 tokens kept for the reply: the first turn fits, the second does not.
        reserve = ["--reply_reserve=2000"]
        result, turns = self.chat(QUESTIONS[:2] + ["/stats"], *reserve)
        self.assertEqual(len(turns), 1)
        self.assertRegex(result.stderr, r"error: the conversation is \d+ tokens and 2000 are kept for the reply")
        self.assertIn("tokens over", result.stderr)
        self.assertIn("drop_oldest_turns", result.stderr)
        # The refused turn left the conversation as it was: /stats still shows turn 1.
        self.assertIn("turn 1:", result.stdout)

        result, turns = self.chat(QUESTIONS[:2], *reserve, "--context_policy", "drop_oldest_turns")
        self.assertEqual([t["dropped_turns"] for t in turns], [0, 1])
        self.assertIn("(1 oldest turns left out to fit the context)", result.stderr)
        # The system prompt is kept, so its tokens are still reused.
        self.assertGreater(turns[1]["reused_tokens"], 0)

    def test_bad_flags(self) -> None:
        llm_main = workspace_file("runtime/llm_main")
        model = f"--model={workspace_file('models/llama_int4.pte')}"
        result = subprocess.run([llm_main, model, "--interactive"], capture_output=True, text=True)
        self.assertEqual(result.returncode, 2)
        self.assertIn("--interactive needs --tokenizer", result.stderr)
        result = subprocess.run(
            [llm_main, model, "--interactive", "--prompt=hi", "--tokenizer=x"], capture_output=True, text=True
        )
        self.assertEqual(result.returncode, 2)
        self.assertIn("drop --prompt", result.stderr)
        tokenizer = f"--tokenizer={workspace_file('tokenizer/runtime/smollm2.tok')}"
        result = subprocess.run(
            [llm_main, model, tokenizer, "--interactive", "--context_policy=sliding"], capture_output=True, text=True
        )
        self.assertEqual(result.returncode, 2)
        self.assertIn("use error or drop_oldest_turns", result.stderr)


if __name__ == "__main__":
    unittest.main()
