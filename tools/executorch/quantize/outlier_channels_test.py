"""outlier_channels: the same linear, with its largest input channels kept out of the int8 rounding."""

from __future__ import annotations

import unittest

import torch
from torch import nn

from tools.executorch.quantize.offset_int4 import OffsetInt4Linear
from tools.executorch.quantize.offset_int4_test import q4_1_weight
from tools.executorch.quantize.outlier_channels import (
    OutlierChannels,
    Outliers,
    choose_channel_sets,
    largest_channels,
    measure_input_peaks,
)


def hidden_states(rows: int, width: int, loud: list[int], seed: int = 0) -> torch.Tensor:
    """Activations like a norm's output: small channels, and a few tens of times larger."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(1, rows, width, generator=g) * 0.5
    x[..., loud] *= 40
    return x


class Block(nn.Module):
    """q/k/v-like linears reading one tensor, and one reading another."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(64, 32, bias=False)
        self.b = nn.Linear(64, 16, bias=False)
        self.c = nn.Linear(32, 64, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c(self.a(x)) + self.b(x).sum()


class OutlierChannelsTest(unittest.TestCase):
    def test_fp32_inner_gives_the_same_linear(self):
        # With an fp32 inner linear nothing is rounded: the split must add up
        # to the original linear exactly.
        linear = nn.Linear(64, 48, bias=False)
        channels = [3, 17, 40]
        split = OutlierChannels(linear, linear.weight, Outliers.of(64, channels))
        x = hidden_states(5, 64, channels)
        torch.testing.assert_close(split(x), linear(x), atol=1e-5, rtol=1e-5)

    def test_int4_linear_with_outliers_is_the_same_linear(self):
        # Without activation rounding (fp32 input to the GEMM), folding the
        # outlier columns into the offset linear must leave the values alone.
        linear = nn.Linear(128, 64, bias=True)
        linear.weight.data = q4_1_weight(64, 128, seed=2)
        plain = OffsetInt4Linear(linear, 32)
        split = OffsetInt4Linear(linear, 32, Outliers.of(128, [1, 70, 127]))
        for module in (plain, split):
            module.weight = nn.Parameter(module.weight.dequantize(), requires_grad=False)
        x = hidden_states(6, 128, [1, 70])
        with torch.no_grad():
            torch.testing.assert_close(split(x), plain(x), atol=1e-4, rtol=1e-5)
            torch.testing.assert_close(split.values(), plain.values())

    def test_int4_linear_rounds_less(self):
        # The point of the module: an input with a few loud channels loses far
        # less to the int8 activations when those channels go round them.
        loud = [5, 33]
        linear = nn.Linear(128, 64, bias=False)
        linear.weight.data = q4_1_weight(64, 128)
        x = hidden_states(16, 128, loud, seed=1)
        exact = x @ OffsetInt4Linear(linear, 32).values().T
        plain = OffsetInt4Linear(linear, 32)
        split = OffsetInt4Linear(linear, 32, Outliers.of(128, loud))
        with torch.no_grad():
            plain_error = (plain(x) - exact).norm()
            split_error = (split(x) - exact).norm()
        self.assertLess(float(split_error), float(plain_error) / 4)

    def test_peaks_group_linears_that_read_one_tensor(self):
        block = Block()
        inputs = [hidden_states(4, 64, [7], seed=s) for s in range(3)]
        peaks = measure_input_peaks(block, lambda: [block(x) for x in inputs])
        self.assertEqual(peaks.groups, [["a", "b"], ["c"]])
        want = torch.stack([x.abs().reshape(-1, 64).amax(0) for x in inputs]).amax(0)
        torch.testing.assert_close(peaks.peaks["a"], want)
        sets = choose_channel_sets(peaks, 2)
        self.assertEqual(sets[0][0], ["a", "b"])
        self.assertIn(7, sets[0][1])

    def test_equal_values_are_not_one_tensor(self):
        # Two linears fed equal but separate tensors are two inputs: their
        # masks must not be shared, even when a freed tensor's id comes back.
        class Twice(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.a = nn.Linear(8, 8, bias=False)
                self.b = nn.Linear(8, 8, bias=False)

            def forward(self, x):
                return self.a(x.clone()) + self.b(x.clone())

        model = Twice()
        peaks = measure_input_peaks(model, lambda: [model(torch.randn(2, 8)) for _ in range(4)])
        self.assertEqual(peaks.groups, [["a"], ["b"]])

    def test_largest_channels_ignore_last_bit_noise(self):
        peak = torch.tensor([1.0, 5.0, 3.0, 5.0 * (1 + 1e-7), 0.5])
        self.assertEqual(largest_channels(peak, 2).tolist(), [1, 3])
        # Peaks equal up to float noise rank by index, whichever is larger.
        self.assertEqual(largest_channels(torch.tensor([2.0, 2.0 * (1 + 1e-7), 1.0]), 1).tolist(), [0])
        self.assertEqual(largest_channels(torch.tensor([2.0 * (1 + 1e-7), 2.0, 1.0]), 1).tolist(), [0])

    def test_a_calibration_that_misses_a_linear_is_an_error(self):
        block = Block()
        with self.assertRaisesRegex(ValueError, "never reached"):
            measure_input_peaks(block, lambda: block.a(torch.randn(1, 64)))


if __name__ == "__main__":
    unittest.main()
