"""offset_int4: asymmetric 4-bit blocks through symmetric ones, exactly."""

from __future__ import annotations

import unittest

import torch

from tools.executorch.quantize.offset_int4 import OffsetInt4Linear, asymmetric_blocks

GROUP = 32


def q4_1_weight(out_features: int, in_features: int, seed: int = 0) -> torch.Tensor:
    """Weights shaped like de-quantized GGUF Q4_1: lo + d·q per block, q in 0..15, both ends used.

    The block ranges are deliberately off-centre (lo far from -8·d), which is
    where symmetric int4 loses levels.
    """
    g = torch.Generator().manual_seed(seed)
    blocks = in_features // GROUP
    q = torch.randint(0, 16, (out_features, blocks, GROUP), generator=g).float()
    q[..., 0], q[..., 1] = 0, 15
    d = (torch.rand(out_features, blocks, 1, generator=g) * 0.02 + 0.001).to(torch.bfloat16).float()
    lo = -d * torch.rand(out_features, blocks, 1, generator=g) * 15
    return (lo + d * q).reshape(out_features, in_features)


def dequantized(k: torch.Tensor, scale: torch.Tensor, offset: torch.Tensor) -> torch.Tensor:
    out_features, in_features = k.shape
    blocks = k.float().reshape(out_features, -1, GROUP)
    return (scale[..., None] * blocks + offset[..., None]).reshape(out_features, in_features)


def symmetric_int4(weight: torch.Tensor) -> torch.Tensor:
    """What ExecuTorch's 8da4w does to a block: scale = max|w| / 7.5, levels -8..7."""
    blocks = weight.reshape(weight.shape[0], -1, GROUP)
    scale = blocks.abs().amax(-1, keepdim=True) / 7.5
    return (torch.round(blocks / scale).clamp(-8, 7) * scale).reshape(weight.shape)


class AsymmetricBlocksTest(unittest.TestCase):
    def test_reproduces_q4_1_blocks(self):
        weight = q4_1_weight(64, 128)
        k, scale, offset = asymmetric_blocks(weight, GROUP)
        self.assertEqual(k.dtype, torch.int8)
        self.assertGreaterEqual(int(k.min()), -8)
        self.assertLessEqual(int(k.max()), 7)
        error = (dequantized(k, scale, offset) - weight).abs().max()
        self.assertLess(float(error), 1e-6)

    def test_scales_are_bf16_exact(self):
        # XNNPACK keeps block scales in bf16; anything finer would be lost
        # in the program and make it differ from this module.
        _, scale, _ = asymmetric_blocks(torch.randn(16, 64), GROUP)
        self.assertTrue(torch.equal(scale, scale.to(torch.bfloat16).float()))

    def test_far_closer_than_symmetric_int4(self):
        weight = q4_1_weight(64, 128, seed=1)
        ours = (dequantized(*asymmetric_blocks(weight, GROUP)) - weight).norm()
        theirs = (symmetric_int4(weight) - weight).norm()
        self.assertLess(float(ours), 1e-3 * float(theirs))

    def test_constant_block(self):
        weight = torch.full((2, GROUP), 0.25)
        k, scale, offset = asymmetric_blocks(weight, GROUP)
        self.assertTrue(torch.allclose(dequantized(k, scale, offset), weight))


def q4_1_linear(seed: int, bias: bool = False) -> torch.nn.Linear:
    """A 128 -> 48 linear whose weights are Q4_1 blocks, as SmolLM2's are."""
    torch.manual_seed(0)
    linear = torch.nn.Linear(128, 48, bias=bias)
    with torch.no_grad():
        linear.weight.copy_(q4_1_weight(48, 128, seed=seed))
    return linear


class OffsetInt4LinearTest(unittest.TestCase):
    def test_forward_is_the_int4_gemm_plus_offsets(self):
        from torchao.quantization.quantize_.workflows.intx.intx_unpacked_to_int8_tensor import (
            _apply_int8_act_asym_per_token_quant_dequant,
        )

        linear = q4_1_linear(seed=2)
        module = OffsetInt4Linear(linear, GROUP)
        x = torch.randn(1, 5, 128)
        k, scale, offset = asymmetric_blocks(linear.weight, GROUP)
        symmetric = dequantized(k, scale, torch.zeros_like(offset))
        sums = x.reshape(1, 5, -1, GROUP).sum(-1)
        expected = torch.nn.functional.linear(_apply_int8_act_asym_per_token_quant_dequant(x), symmetric)
        expected = expected + sums @ offset.T
        self.assertTrue(torch.allclose(module(x), expected, atol=1e-4, rtol=1e-4))
        # and so, to int8 activation rounding, the original layer
        exact = linear(x).detach()
        self.assertLess(float((module(x) - exact).norm() / exact.norm()), 0.02)

    def test_batches_keep_their_own_means(self):
        # One sequence takes the (n, blocks) path the exported programs use;
        # several must not mix their block means.
        module = OffsetInt4Linear(q4_1_linear(seed=4), GROUP)
        batch = torch.randn(3, 5, 128)
        together = module(batch)
        for i in range(3):
            self.assertTrue(torch.allclose(together[i : i + 1], module(batch[i : i + 1]), atol=1e-5), i)

    def test_bias_is_added_exactly(self):
        # Qwen2.5's q/k/v projections: the same layer with and without its bias.
        torch.manual_seed(0)
        biased = torch.nn.Linear(128, 48, bias=True)
        with torch.no_grad():
            biased.weight.copy_(q4_1_weight(48, 128, seed=3))
        plain = torch.nn.Linear(128, 48, bias=False)
        with torch.no_grad():
            plain.weight.copy_(biased.weight)
        x = torch.randn(1, 5, 128)
        with_bias, without = OffsetInt4Linear(biased, GROUP)(x), OffsetInt4Linear(plain, GROUP)(x)
        self.assertTrue(torch.allclose(with_bias - without, biased.bias.expand_as(without), atol=1e-5))


if __name__ == "__main__":
    unittest.main()
