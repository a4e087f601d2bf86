"""QNN exports: byte-reproducible, honest manifests, runnable in the simulator, clear errors.

Uses the tiny random model (//models:tiny_qnn): the same export code path as
SmolLM2's in a minute instead of many.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
import unittest

from tools.qnn import simulator

simulator.ensure_environment()

from tools.python.runfile import runfile  # noqa: E402

TINY = "models/tiny_random"
# The flags //models:tiny_qnn was exported with (see models/BUILD.bazel).
TINY_QNN_FLAGS = [
    "--model_label=//models:tiny_random",
    "--calibration_passages=8",
    "--soc=SM8650",
    "--quantize=16a4w_block_asym",
    "--group_size=32",
    "--max_context_len=128",
]


def sha256(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def export(out_dir: str, *flags: str, env: dict | None = None, calibration: str | None = None):
    manifest = json.load(open(runfile("models/tiny_qnn.manifest.json")))
    return subprocess.run(
        [
            runfile("tools/executorch/export_qnn"),
            f"--checkpoint={runfile(TINY + '/checkpoint.pth')}",
            f"--params={runfile(TINY + '/params.json')}",
            f"--tokenizer={runfile(TINY + '/tokenizer.json')}",
            f"--tokenizer_config={runfile(TINY + '/tokenizer_config.json')}",
            f"--calibration={calibration or runfile('models/tiny_calibration.json')}",
            f"--qairt_build_id={manifest['qnn']['qairtBuildId']}",
            "--abi_adapter" if manifest["qnn"]["abiAdapter"] else "--noabi_adapter",
            f"--out_pte={out_dir}/again.pte",
            f"--out_manifest={out_dir}/again.manifest.json",
            *TINY_QNN_FLAGS,
            *flags,
        ],
        env=env if env is not None else dict(os.environ),
        capture_output=True,
        text=True,
        check=False,
    )


class QnnExportTest(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp(prefix="elsewhere-with-a-longer-name-")

    def assert_fails_with(self, result, *needles: str) -> None:
        self.assertNotEqual(result.returncode, 0, result.stderr[-2000:])
        for needle in needles:
            self.assertIn(needle, result.stderr)

    def test_export_is_byte_identical(self):
        env = dict(os.environ, PYTHONHASHSEED="12345")
        result = export(self.out, env=env)
        self.assertEqual(result.returncode, 0, result.stderr[-3000:])
        self.assertEqual(sha256(f"{self.out}/again.pte"), sha256(runfile("models/tiny_qnn.pte")))

    def test_manifest_tells_the_truth(self):
        manifest = json.load(open(runfile("models/tiny_qnn.manifest.json")))
        pte = runfile("models/tiny_qnn.pte")
        self.assertEqual(manifest["sha256"], sha256(pte))
        qnn = manifest["qnn"]
        self.assertEqual((qnn["soc"], qnn["htpArch"], qnn["quantize"]), ("SM8650", "V75", "16a4w_block_asym"))
        self.assertTrue(qnn["qairtBuildId"].startswith("v2."), qnn)
        self.assertTrue(qnn["qairtBuildIdInContextBlob"], "the context binary should carry the QAIRT build id")
        self.assertTrue(qnn["transformerBlocksFullyDelegated"], qnn["cpuOpsByName"])
        self.assertGreater(qnn["delegatedOps"], 10 * qnn["cpuOps"])
        self.assertEqual(qnn["calibration"]["passages"], 8)

    def test_runs_in_the_simulator(self):
        from tools.executorch.pte_runner import PteSession

        session = PteSession(
            runfile("models/tiny_qnn.pte"), runfile(TINY + "/tokenizer.json"), runfile(TINY + "/tokenizer_config.json")
        )
        logits = session.prefill(session.encode("It is a truth universally acknowledged"))
        self.assertEqual(tuple(logits.shape), (49152,))
        self.assertTrue(bool(logits.isfinite().all()))

    def test_no_sdk(self):
        env = {k: v for k, v in os.environ.items() if k != "QNN_SDK_ROOT"}
        self.assert_fails_with(export(self.out, env=env), "no QNN SDK", "QNN_SDK_ROOT")

    def test_unknown_soc(self):
        self.assert_fails_with(export(self.out, "--soc=SM9999"), "unknown SoC 'SM9999'", "SM8650")

    def test_calibration_too_small(self):
        self.assert_fails_with(export(self.out, "--calibration_passages=2"), "too small", "at least 8")

    def test_calibration_of_another_tokenizer(self):
        with open(runfile("models/tiny_calibration.json")) as f:
            record = json.load(f)
        record["tokenizer_sha256"] = "0" * 64
        other = os.path.join(self.out, "other.json")
        with open(other, "w") as f:
            json.dump(record, f)
        self.assert_fails_with(export(self.out, calibration=other), "another tokenizer")


if __name__ == "__main__":
    unittest.main()
