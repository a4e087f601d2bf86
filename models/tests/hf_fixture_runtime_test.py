"""A Hugging Face fixture's programs through llm_main, reached as `bazel run` users reach them.

`<program>_chat` is llm_main with the program and its compiled tokenizer. On
the fp32 program its greedy tokens must be the Python runtime's, with the
prompt built by each side's own chat template (C++ for llm_main, Jinja for
Python), so this checks the template and tokenizer of the family as well.
The 4-bit program must run and produce the requested number of tokens.
"""

from __future__ import annotations

import os
import subprocess
import unittest

from tools.executorch.pte_runner import PteSession
from tools.executorch.testing import workspace_file

FIXTURE = os.environ["FIXTURE"]
PROMPTS = ("What is the capital of France?", "  Write one line about the sea.\n")
NEW_TOKENS = 16


def chat_ids(program: str, prompt: str) -> list[int]:
    result = subprocess.run(
        [
            workspace_file(f"models/{program}_chat.sh"),
            f"--prompt={prompt}",
            f"--max_new_tokens={NEW_TOKENS}",
            "--ignore_eos",
            "--print_ids",
            "--threads=1",
        ],
        # The launcher's paths are relative to the runfiles root.
        cwd=os.path.dirname(os.path.dirname(workspace_file(f"models/{program}_chat.sh"))),
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise AssertionError(f"{program}_chat failed: {result.stderr[-2000:]}")
    return [int(token) for token in result.stdout.replace(",", " ").split()]


class HfFixtureRuntimeTest(unittest.TestCase):
    def test_fp32_greedy_tokens_match_the_python_runtime(self):
        program = f"{FIXTURE}_fp32"
        session = PteSession(
            workspace_file(f"models/{program}.pte"),
            workspace_file(f"models/{FIXTURE}/tokenizer.json"),
            workspace_file(f"models/{FIXTURE}/tokenizer_config.json"),
        )
        for prompt in PROMPTS:
            with self.subTest(prompt=prompt):
                ids = session.encode(session.chat_prompt(prompt))
                expected = list(session.generate(ids, NEW_TOKENS, stop_at_eos=False))
                self.assertEqual(chat_ids(program, prompt), expected)

    def test_int4_program_runs(self):
        self.assertEqual(len(chat_ids(f"{FIXTURE}_int4", PROMPTS[0])), NEW_TOKENS)


if __name__ == "__main__":
    unittest.main()
