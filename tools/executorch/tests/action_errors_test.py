"""Bad input to the build actions fails with a message naming the fix."""

from __future__ import annotations

import hashlib
import json
import subprocess
import tempfile
import unittest

from tools.executorch.testing import workspace_file

TINY = "models/tiny_random"


def run(tool: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([workspace_file(f"tools/executorch/{tool}"), *args], capture_output=True, text=True)


class ExportErrorsTest(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp()

    def export(self, *flags: str, checkpoint: str | None = None) -> subprocess.CompletedProcess:
        return run(
            "export_pte",
            f"--checkpoint={checkpoint or workspace_file(TINY + '/checkpoint.pth')}",
            f"--params={workspace_file(TINY + '/params.json')}",
            f"--tokenizer={workspace_file(TINY + '/tokenizer.json')}",
            f"--tokenizer_config={workspace_file(TINY + '/tokenizer_config.json')}",
            f"--out_pte={self.out}/x.pte",
            f"--out_manifest={self.out}/x.json",
            *flags,
        )

    def assert_fails_with(self, result: subprocess.CompletedProcess, *needles: str) -> None:
        self.assertNotEqual(result.returncode, 0, result.stderr)
        for needle in needles:
            self.assertIn(needle, result.stderr)

    def test_group_size_dividing_no_linear(self):
        # Tiny model: dim 64, hidden 192; 128 divides neither.
        result = self.export("--quantize=8da4w", "--group_size=128", "--backend=xnnpack")
        self.assert_fails_with(
            result, "group_size=128 divides no linear layer", "pick a group size that divides dim=64"
        )

    def test_context_shorter_than_prefill(self):
        result = self.export("--max_seq_len=64", "--max_context_len=32")
        self.assert_fails_with(result, "max_context_len=32 is smaller than max_seq_len=64", "raise max_context_len")

    def test_int4_weight_only_on_xnnpack(self):
        result = self.export("--quantize=int4_weight_only", "--group_size=32", "--backend=xnnpack")
        self.assert_fails_with(result, "cannot be lowered correctly to backend='xnnpack'", 'use recipe = "int4"')

    def test_int4_weight_only_on_portable(self):
        result = self.export("--quantize=int4_weight_only", "--group_size=32", "--backend=portable")
        self.assert_fails_with(result, "cannot be lowered correctly to backend='portable'", 'use recipe = "int4"')

    def test_bad_embedding_quantize(self):
        result = self.export("--quantize=8da4w", "--group_size=32", "--embedding_quantize=3,32")
        self.assert_fails_with(result, "embedding_quantize='3,32'")

    def test_head_quantize_needs_the_asymmetric_recipe(self):
        result = self.export("--quantize=8da4w", "--group_size=32", "--backend=xnnpack", "--head_quantize=8da8w")
        self.assert_fails_with(result, "head_quantize='8da8w' needs quantize='8da4w_asym'")

    def test_unknown_head_quantize(self):
        result = self.export("--quantize=8da4w_asym", "--group_size=32", "--backend=xnnpack", "--head_quantize=int3")
        self.assert_fails_with(result, "head_quantize='int3' is not one of ['8da8w']")

    def test_asymmetric_recipe_off_xnnpack(self):
        result = self.export("--quantize=8da4w_asym", "--group_size=32", "--backend=portable")
        self.assert_fails_with(result, "set backend='xnnpack'")

    def test_outlier_channels_need_calibration(self):
        result = self.export("--quantize=8da4w_asym", "--group_size=32", "--backend=xnnpack", "--outlier_channels=8")
        self.assert_fails_with(result, "outlier_channels=8 picks channels on calibration text", "calibration_set")

    def test_outlier_channels_need_the_asymmetric_recipe(self):
        result = self.export("--quantize=8da4w", "--group_size=32", "--backend=xnnpack", "--outlier_channels=8")
        self.assert_fails_with(result, "outlier_channels=8 needs quantize='8da4w_asym'")

    def export_calibrated(self, tokenizer_sha256: str, passages: int) -> subprocess.CompletedProcess:
        """The int4 recipe with outlier channels, on a one-passage calibration set."""
        calibration = f"{self.out}/calibration.json"
        with open(calibration, "w") as f:
            json.dump({"tokenizer_sha256": tokenizer_sha256, "passages": [[1, 2, 3]]}, f)
        return self.export(
            "--quantize=8da4w_asym",
            "--group_size=32",
            "--backend=xnnpack",
            "--outlier_channels=8",
            f"--calibration={calibration}",
            f"--calibration_passages={passages}",
        )

    def test_calibration_of_another_tokenizer(self):
        result = self.export_calibrated("0", passages=1)
        self.assert_fails_with(result, "tokenized with another tokenizer than this model's")

    def test_more_calibration_passages_than_the_set_holds(self):
        with open(workspace_file(TINY + "/tokenizer.json"), "rb") as f:
            result = self.export_calibrated(hashlib.sha256(f.read()).hexdigest(), passages=4)
        self.assert_fails_with(result, "holds 1 passages but calibration_passages=4")

    def test_missing_checkpoint(self):
        result = self.export(checkpoint=f"{self.out}/nope.pth")
        self.assert_fails_with(result, "nope.pth does not exist")


class ConvertErrorsTest(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp()

    def convert(self, *flags: str) -> subprocess.CompletedProcess:
        return run(
            "convert_checkpoint",
            f"--out_checkpoint={self.out}/c.pth",
            f"--out_params={self.out}/p.json",
            f"--out_tokenizer={self.out}/t.json",
            f"--out_tokenizer_config={self.out}/tc.json",
            *flags,
        )

    def test_missing_meta_checkpoint(self):
        result = self.convert(
            "--source=meta",
            f"--checkpoint={self.out}/consolidated.00.pth",
            f"--params={workspace_file(TINY + '/params.json')}",
            f"--tokenizer={workspace_file(TINY + '/tokenizer.json')}",
        )
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("consolidated.00.pth does not exist", result.stderr)
        self.assertIn("point llm_checkpoint.checkpoint at", result.stderr)

    def test_checkpoint_not_matching_params(self):
        # The tiny checkpoint with params claiming another width.
        params = f"{self.out}/wrong_params.json"
        with open(workspace_file(TINY + "/params.json")) as f:
            text = f.read().replace('"dim": 64', '"dim": 128')
        with open(params, "w") as f:
            f.write(text)
        result = self.convert(
            "--source=meta",
            f"--checkpoint={workspace_file(TINY + '/checkpoint.pth')}",
            f"--params={params}",
            f"--tokenizer={workspace_file(TINY + '/tokenizer.json')}",
        )
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("params.json says vocab_size=49152, dim=128", result.stderr)

    def test_missing_gguf(self):
        result = self.convert("--source=gguf", f"--gguf={self.out}/model.gguf")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("model.gguf does not exist", result.stderr)


if __name__ == "__main__":
    unittest.main()
