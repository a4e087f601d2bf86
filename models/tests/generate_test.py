"""`bazel run //models:generate` end to end, on the tiny model."""

from __future__ import annotations

import subprocess
import unittest

from tools.executorch.testing import workspace_file


def generate(*flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([workspace_file("models/generate"), *flags], capture_output=True, text=True, timeout=300)


class GenerateTest(unittest.TestCase):
    def test_streams_text_and_reports_speed(self):
        result = generate("--pte=tiny_8da4w", "--prompt=Hello there", "--max_new_tokens=8")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(result.stdout.strip(), "no text was printed")
        self.assertRegex(result.stderr, r"TTFT \d+ ms, decode [\d.]+ tok/s")

    def test_unknown_program_is_a_clear_error(self):
        result = generate("--pte=llama_int3")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("no program 'llama_int3'", result.stderr)
        self.assertIn("bundled: llama_int4, tiny_8da4w, tiny_fp32", result.stderr)

    def test_prompt_longer_than_context_is_a_clear_error(self):
        result = generate("--pte=tiny_8da4w", "--prompt=" + "word " * 400, "--max_new_tokens=1")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("but the program's context is 256", result.stderr)


if __name__ == "__main__":
    unittest.main()
