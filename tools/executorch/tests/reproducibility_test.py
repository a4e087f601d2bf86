"""The same export, redone elsewhere, is byte-identical to what Bazel built.

The second export runs in a fresh process, from another working directory,
with another PYTHONHASHSEED and an output path of a different length, so any
leaked path, hash order or timestamp would show up as a byte difference.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
import unittest

from tools.executorch.testing import workspace_file

TINY = "models/tiny_random"


def sha256(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class ReproducibilityTest(unittest.TestCase):
    def test_tiny_8da4w_export_is_byte_identical(self):
        built = workspace_file("models/tiny_8da4w.pte")
        with tempfile.TemporaryDirectory(prefix="elsewhere-with-a-longer-name-") as scratch:
            out = os.path.join(scratch, "nested", "again.pte")
            os.makedirs(os.path.dirname(out))
            env = dict(os.environ, PYTHONHASHSEED="12345")
            subprocess.run(
                [
                    workspace_file("tools/executorch/export_pte"),
                    f"--checkpoint={workspace_file(TINY + '/checkpoint.pth')}",
                    f"--params={workspace_file(TINY + '/params.json')}",
                    f"--tokenizer={workspace_file(TINY + '/tokenizer.json')}",
                    f"--tokenizer_config={workspace_file(TINY + '/tokenizer_config.json')}",
                    "--model_label=//models:tiny_random",
                    "--quantize=8da4w",
                    "--group_size=32",
                    "--embedding_quantize=4,32",
                    "--backend=xnnpack",
                    "--max_seq_len=32",
                    "--max_context_len=256",
                    f"--out_pte={out}",
                    f"--out_manifest={out}.json",
                ],
                check=True,
                cwd=scratch,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            self.assertEqual(sha256(out), sha256(built))
            self.assertEqual(os.path.getsize(out), os.path.getsize(built))


if __name__ == "__main__":
    unittest.main()
