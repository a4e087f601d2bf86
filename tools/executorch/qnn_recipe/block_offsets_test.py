"""The LPBQ fit of asymmetric blocks: exact where the weights allow it, on the HTP's grid always, and a linear's equal."""

from __future__ import annotations

import unittest

import torch

from tools.executorch.qnn_recipe import block_offsets

GROUP = 32


def q4_1_weight(rows: int, cols: int, steps: torch.Tensor) -> torch.Tensor:
    """Asymmetric 4-bit blocks (GGUF Q4_1's layout): min + step * (0..15), with the given step per block."""
    generator = torch.Generator().manual_seed(0)
    levels = torch.randint(0, 16, (rows, cols // GROUP, GROUP), generator=generator).float()
    levels[..., 0], levels[..., 1] = 0, 15  # each block spans its 16 levels
    low = torch.randn(rows, cols // GROUP, 1, generator=generator)
    return (low + steps.unsqueeze(-1) * levels).reshape(rows, cols)


class BlockOffsetsTest(unittest.TestCase):
    def test_blocks_whose_steps_are_on_the_grid_are_exact(self) -> None:
        # Steps that are k/16 of each row's widest: the HTP can hold them exactly.
        steps = torch.tensor([[16, 8, 3], [16, 16, 1]], dtype=torch.float32) / 64
        weight = q4_1_weight(2, 3 * GROUP, steps)
        symmetric, scales, offsets = block_offsets.fit_blocks(weight, GROUP)
        rebuilt = symmetric.reshape(2, 3, GROUP) + offsets.unsqueeze(-1)
        torch.testing.assert_close(rebuilt.reshape(weight.shape), weight, rtol=0, atol=1e-6)
        torch.testing.assert_close(scales, steps)

    def test_scales_are_on_the_lpbq_grid_with_the_widest_block_at_16(self) -> None:
        weight = torch.randn(8, 4 * GROUP, generator=torch.Generator().manual_seed(1))
        symmetric, scales, _ = block_offsets.fit_blocks(weight, GROUP)
        # What the HTP's lowering does with them: S = max / 16, k = round(scale / S) in 1..16.
        unit = scales.amax(1, keepdim=True) / block_offsets.SCALE_STEPS
        k = torch.round(scales / unit)
        torch.testing.assert_close(k * unit, scales)
        self.assertTrue(bool(((k >= 1) & (k <= 16)).all()))
        levels = symmetric.reshape(8, 4, GROUP) / scales.unsqueeze(-1)
        torch.testing.assert_close(levels, levels.round(), rtol=0, atol=1e-4)
        self.assertGreaterEqual(float(levels.round().min()), block_offsets.LEVELS[0])
        self.assertLessEqual(float(levels.round().max()), block_offsets.LEVELS[1])

    def test_the_transformed_linear_computes_the_fitted_weight(self) -> None:
        from executorch.backends.qualcomm.utils.utils import convert_linear_to_conv2d

        steps = torch.full((4, 2), 1 / 16)
        weight = q4_1_weight(4, 2 * GROUP, steps)
        model = torch.nn.Module()
        model.proj = torch.nn.Linear(2 * GROUP, 4, bias=False)
        model.proj.weight.data = weight.clone()
        model.output = torch.nn.Linear(2 * GROUP, 4, bias=False)
        convert_linear_to_conv2d(model)
        offsets = block_offsets.BlockOffsets(GROUP)
        offsets(model)
        x = torch.randn(1, 3, 2 * GROUP)
        torch.testing.assert_close(model.proj(x), x @ weight.T, rtol=1e-5, atol=1e-5)
        self.assertEqual(list(offsets.scales), ["proj.main.conv.weight"], "the head is left alone")


if __name__ == "__main__":
    unittest.main()
