"""PairRotation is ExecuTorch's rotary embedding, bit for bit."""

from __future__ import annotations

import unittest

import torch
from executorch.examples.models.llama.rope import RotaryEmbedding, precompute_freqs_cis

from tools.executorch.xnnpack_graph.pair_rotation import PairRotation


class PairRotationTest(unittest.TestCase):
    def test_bit_identical_to_upstream(self):
        torch.manual_seed(0)
        for head_dim, heads, kv_heads in ((64, 9, 3), (16, 4, 2), (128, 8, 8)):
            cos, sin = precompute_freqs_cis(head_dim, 256, 100000.0)
            for start, length in ((0, 1), (37, 5), (200, 56)):
                q = torch.randn(1, length, heads, head_dim) * 4
                k = torch.randn(1, length, kv_heads, head_dim) * 4
                c, s = cos[start : start + length], sin[start : start + length]
                theirs = RotaryEmbedding()(q, k, c, s)
                ours = PairRotation(head_dim)(q, k, c.repeat_interleave(2, -1), s.repeat_interleave(2, -1))
                for a, b in zip(ours, theirs, strict=True):
                    self.assertTrue(torch.equal(a, b), (head_dim, start, length))

    def test_rejects_upstream_tables(self):
        cos, sin = precompute_freqs_cis(16, 8, 10000.0)
        with self.assertRaisesRegex(ValueError, "from pair_rotation"):
            PairRotation(16)(torch.zeros(1, 8, 2, 16), torch.zeros(1, 8, 2, 16), cos, sin)

    def test_odd_head_dim(self):
        with self.assertRaisesRegex(ValueError, "even head_dim"):
            PairRotation(15)


if __name__ == "__main__":
    unittest.main()
