"""A Meta-format checkpoint (the Llama 3.2 route) converts without loss."""

from __future__ import annotations

import filecmp
import unittest

from tools.executorch.testing import workspace_file

FILES = ("checkpoint.pth", "params.json", "tokenizer.json")


class MetaCheckpointTest(unittest.TestCase):
    def test_roundtrip_is_byte_identical(self):
        for name in FILES:
            original = workspace_file(f"models/tiny_random/{name}")
            roundtrip = workspace_file(f"tools/executorch/tests/tiny_meta_roundtrip/{name}")
            self.assertTrue(filecmp.cmp(original, roundtrip, shallow=False), name)


if __name__ == "__main__":
    unittest.main()
