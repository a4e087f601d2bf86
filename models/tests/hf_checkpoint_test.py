"""SmolLM2 by the Hugging Face route converts to exactly what its GGUF converts to.

//models:smollm2_hf is the GGUF written out as a Hugging Face folder (two
fp32 safetensors shards and their index, config.json, tokenizer files).
Byte-identical checkpoint.pth, params.json, tokenizer.json and
tokenizer_config.json mean every program exported from either is the same
program: the exporter sees the same bytes and flags.
"""

from __future__ import annotations

import hashlib
import unittest

from tools.executorch.testing import workspace_file

FILES = ("checkpoint.pth", "params.json", "tokenizer.json", "tokenizer_config.json")


def sha256(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


class HfCheckpointTest(unittest.TestCase):
    def test_both_routes_give_the_same_files(self):
        for name in FILES:
            with self.subTest(file=name):
                self.assertEqual(
                    sha256(workspace_file(f"models/smollm2_hf/{name}")),
                    sha256(workspace_file(f"models/smollm2_135m/{name}")),
                )


if __name__ == "__main__":
    unittest.main()
