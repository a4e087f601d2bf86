"""The Hugging Face fixtures' QNN programs: compiled for the HTP with every decoder layer delegated, and a prefill method."""

from __future__ import annotations

import hashlib
import json
import os
import unittest

from tools.executorch.testing import workspace_file


class HfQnnManifestTest(unittest.TestCase):
    def test_each_program_is_delegated_and_its_manifest_true(self):
        for name in os.environ["QNN_PROGRAMS"].split(","):
            with self.subTest(program=name):
                with open(workspace_file(f"models/{name}.manifest.json"), encoding="utf-8") as f:
                    manifest = json.load(f)
                with open(workspace_file(f"models/{name}.pte"), "rb") as f:
                    self.assertEqual(hashlib.sha256(f.read()).hexdigest(), manifest["sha256"])
                qnn = manifest["qnn"]
                self.assertEqual((qnn["soc"], qnn["quantize"]), ("SM8650", "16a4w_block_asym"))
                self.assertTrue(qnn["transformerBlocksFullyDelegated"], qnn["cpuOpsByName"])
                self.assertGreater(qnn["delegatedOps"], 10 * qnn["cpuOps"])
                # A 32-token prefill method beside forward, with a copy of
                # the weights each: the simulator runs these programs.
                self.assertEqual(qnn["prefillLength"], 32)
                self.assertFalse(qnn.get("weightSharing", False))


if __name__ == "__main__":
    unittest.main()
