"""same_vocabulary passes tokenizers that map ids alike and names the first id
where two differ: SmolLM2's against itself, against its copy in another
checkpoint, and against the Llama 3 fixture's. Tests run in the runfiles
root, so workspace-relative paths work."""

from __future__ import annotations

import os
import subprocess
import tempfile
import unittest

from tokenizer.compare.same_vocabulary import first_difference, vocabulary

SMOLLM2 = "models/tiny_random/tokenizer.json"
LLAMA3_TINY = "models/llama3_tiny/tokenizer.json"


class SameVocabularyTest(unittest.TestCase):
    def check(self, tokenizer: str, draft: str) -> tuple[subprocess.CompletedProcess, str]:
        out = os.path.join(tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR")), "ok")
        result = subprocess.run(
            [
                "tokenizer/compare/same_vocabulary",
                f"--tokenizer={tokenizer}",
                f"--draft_tokenizer={draft}",
                "--program=//models:target",
                "--draft=//models:draft",
                f"--out={out}",
            ],
            capture_output=True,
            text=True,
        )
        return result, out

    def test_the_same_tokenizer_passes(self):
        result, out = self.check(SMOLLM2, "models/smollm2_135m/tokenizer.json")
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(out) as f:
            self.assertEqual(f.read(), "49152 tokens, the same ids\n")

    def test_another_tokenizer_fails_and_names_the_id(self):
        result, out = self.check(SMOLLM2, LLAMA3_TINY)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("the draft //models:draft cannot draft for //models:target: token id", result.stderr)
        self.assertIn("pair programs exported from checkpoints with the same tokenizer", result.stderr)
        self.assertFalse(os.path.exists(out))

    def test_added_tokens_count(self):
        base = {"model": {"vocab": {"a": 0, "b": 1}}, "added_tokens": [{"id": 2, "content": "<eos>"}]}
        other = {"model": {"vocab": {"a": 0, "b": 1}}, "added_tokens": [{"id": 2, "content": "<|end|>"}]}
        self.assertEqual(first_difference(vocabulary(base), vocabulary(base)), "")
        self.assertEqual(
            first_difference(vocabulary(base), vocabulary(other)),
            "token id 2 is '<eos>' in the program's tokenizer and '<|end|>' in the draft's",
        )
        shorter = {"model": {"vocab": {"a": 0}}}
        self.assertEqual(
            first_difference(vocabulary(base), vocabulary(shorter)),
            "token id 1 is 'b' in the program's tokenizer and missing in the draft's",
        )

    def test_a_tokenizer_without_a_vocabulary_is_named(self):
        with self.assertRaisesRegex(ValueError, "no model.vocab table"):
            vocabulary({"model": {"type": "Unigram", "vocab": [["a", 0.0]]}})


if __name__ == "__main__":
    unittest.main()
