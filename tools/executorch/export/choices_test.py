"""The rules' choices are the exporter's, and each one is implemented."""

from __future__ import annotations

import os
import tempfile
import unittest

from tools.executorch.export.choices import CHOICES, read_choices
from tools.executorch.quantize import recipe


class ChoicesTest(unittest.TestCase):
    def test_every_setting_has_choices(self) -> None:
        self.assertEqual(sorted(CHOICES), ["backend", "group_size", "head_quantize", "quantize"])
        self.assertIn("8da4w_asym", CHOICES["quantize"])
        self.assertTrue(all(isinstance(g, int) for g in CHOICES["group_size"]))

    def test_the_head_modes_are_the_recipes(self) -> None:
        self.assertEqual(tuple(CHOICES["head_quantize"]), recipe.HEAD_MODES)
        self.assertEqual(set(recipe.LINEAR_MODES), set(CHOICES["quantize"]) - {"none", "int4_weight_only", "8da4w"})

    def test_a_file_without_the_literal_is_named(self) -> None:
        with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as tmp:
            path = os.path.join(tmp, "choices.bzl")
            with open(path, "w") as f:
                f.write("OTHER = {}\n")
            with self.assertRaisesRegex(RuntimeError, "has no CHOICES"):
                read_choices(path)


if __name__ == "__main__":
    unittest.main()
