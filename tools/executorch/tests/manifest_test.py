"""Each manifest parses with its own schema and tells the truth about its .pte."""

from __future__ import annotations

import hashlib
import os
import unittest

from google.protobuf import json_format

from tools.executorch import manifest_pb2
from tools.executorch.testing import workspace_file


def load(name: str) -> manifest_pb2.PteManifest:
    with open(workspace_file(f"models/{name}.manifest.json")) as f:
        # ignore_unknown_fields=False: a field outside the schema is a bug.
        return json_format.Parse(f.read(), manifest_pb2.PteManifest())


class ManifestTest(unittest.TestCase):
    def test_hash_and_size_describe_the_file(self):
        for name in ("tiny_fp32", "tiny_8da4w"):
            manifest = load(name)
            path = workspace_file(f"models/{name}.pte")
            with open(path, "rb") as f:
                self.assertEqual(manifest.sha256, hashlib.sha256(f.read()).hexdigest(), name)
            self.assertEqual(manifest.size_bytes, os.path.getsize(path), name)
            self.assertEqual(manifest.pte, f"{name}.pte")

    def test_versions_are_the_locked_ones(self):
        versions = load("tiny_fp32").versions
        self.assertEqual(versions.executorch, "1.5.1")
        self.assertTrue(versions.torch.startswith("2.13.0"))
        self.assertEqual(versions.torchao, "0.18.0")

    def test_portable_program_has_no_delegates(self):
        ops = load("tiny_fp32").ops
        self.assertEqual(ops.delegate_calls, 0)
        self.assertEqual(ops.delegated, 0)
        self.assertGreater(ops.non_delegated, 0)
        self.assertIn("custom_sdpa.out", ops.non_delegated_by_op)

    def test_xnnpack_program_delegates_the_linears(self):
        manifest = load("tiny_8da4w")
        self.assertEqual(list(manifest.ops.backends), ["XnnpackBackend"])
        self.assertGreater(manifest.ops.delegated, 0)
        self.assertGreater(manifest.ops.delegate_calls, 0)
        # No matmul-class op may be left to the portable kernels.
        for op in manifest.ops.non_delegated_by_op:
            self.assertNotIn("linear", op)
            self.assertNotIn("mm", op)
        self.assertEqual(manifest.config.quantize, "8da4w")
        self.assertEqual(manifest.config.group_size, 32)
        self.assertEqual(list(manifest.config.unquantized_linears), [])

    def test_int4_recipe_lowers_a_layer_in_three_delegate_calls(self):
        # Each entry into a delegate costs microseconds per decode step. A
        # layer is cut only where the runtime must run an operator itself:
        # the KV-cache update and SDPA, and RMSNorm's mean (twice). Outside
        # the layers: one call each for the embedding's scaling, the final
        # norm and the head.
        manifest = load("tiny_int4")
        self.assertLessEqual(manifest.ops.delegate_calls, 3 * manifest.architecture.n_layers + 3)

    def test_4bit_program_is_much_smaller(self):
        fp32, int4 = load("tiny_fp32"), load("tiny_8da4w")
        self.assertLess(int4.size_bytes * 5, fp32.size_bytes)

    def test_tokenizer_reference(self):
        tokenizer = load("tiny_8da4w").tokenizer
        with open(workspace_file("models/tiny_random/tokenizer.json"), "rb") as f:
            self.assertEqual(tokenizer.sha256, hashlib.sha256(f.read()).hexdigest())
        self.assertEqual(tokenizer.bos_id, 1)
        self.assertIn(2, tokenizer.eos_ids)
        self.assertTrue(tokenizer.has_chat_template)


if __name__ == "__main__":
    unittest.main()
