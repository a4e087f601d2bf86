"""qnn_pte's choices are export_qnn's, and each scheme maps to a QnnQuantizer dtype."""

from __future__ import annotations

import unittest

from tools.executorch.qnn_recipe import quantizer


class QuantizerTest(unittest.TestCase):
    def test_the_choices_come_from_the_rule(self) -> None:
        self.assertEqual(sorted(quantizer.CHOICES), ["group_size", "quantize"])
        self.assertIn("16a4w_block", quantizer.SCHEMES)
        self.assertTrue(all(isinstance(size, int) for size in quantizer.BLOCK_SIZES))

    def test_every_scheme_makes_a_quantizer(self) -> None:
        for scheme in quantizer.SCHEMES:
            with self.subTest(scheme=scheme):
                made, dtype = quantizer.make_quantizer("SM8650", scheme)
                self.assertIsNotNone(made)
                self.assertTrue(dtype.name.startswith("use_"), dtype)


if __name__ == "__main__":
    unittest.main()
