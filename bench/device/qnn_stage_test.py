"""The ladder's QNN stage, on the host and on the emulated phone.

On the host, //bench:device runs tiny_qnn for real: llm_main with ExecuTorch's
x86-64 QNN backend, in the HTP simulator. The emulated phone cannot run QNN
(there is no Hexagon DSP under qemu), so there the tests check what must happen
before anything runs on a real one: the phone's SoC and the QAIRT version of
the pushed libraries against the program's manifest, the library set, and
that the runner on the phone is pointed at the QNN backend.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import unittest

from bench.device.device_bench_test import arm64_libraries
from bench.device.qnn_preflight import required_libraries
from tools.executorch.testing import workspace_file


def tiny_qnn_manifest() -> dict:
    with open(workspace_file("models/tiny_qnn.manifest.json")) as f:
        return json.load(f)


def fake_qnn_libraries(folder: str, build_id: str) -> list[str]:
    """Stand-ins for the QAIRT Android libraries: not arm64 code, but stamped with a QAIRT build id as the real ones are."""
    paths = []
    for name in required_libraries(tiny_qnn_manifest()["qnn"]["htpArch"]):
        path = os.path.join(folder, name)
        with open(path, "wb") as f:
            f.write(b"\x7fELF not really\x00QAIRT build " + build_id.encode() + b"\x00")
        paths.append(path)
    return paths


class QnnStageTest(unittest.TestCase):
    def bench(self, out: str, *flags: str, env: dict | None = None) -> tuple[subprocess.CompletedProcess, dict]:
        result = subprocess.run(
            [
                workspace_file("bench/device/device"),
                "--plan=tiny_qnn",
                "--runs=1",
                "--warmup=0",
                "--prompt_tokens=8",
                "--new_tokens=4",
                "--cooldown_timeout_s=1",
                f"--out={out}",
                *flags,
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=1200,
        )
        with open(os.path.join(out, "results.json")) as f:
            return result, json.load(f)

    def on_phone(self, soc: str, qnn_libs: list[str]) -> tuple[subprocess.CompletedProcess, dict, str]:
        phone = tempfile.mkdtemp()
        with open(os.path.join(phone, "props.json"), "w") as f:
            json.dump({"ro.soc.model": soc}, f)
        result, results = self.bench(
            tempfile.mkdtemp(),
            f"--adb={workspace_file('bench/device/fake_adb')}",
            f"--phone_runner={workspace_file('runtime/llm_main_linux_arm64')}",
            "--phone_libs=" + ",".join(arm64_libraries()),
            "--qnn_libs=" + ",".join(qnn_libs),
            env=dict(os.environ, FAKE_ADB_HOME=phone),
        )
        (stage,) = results["variants"]
        self.assertEqual(results["environment"]["soc"], soc)
        self.assertEqual(result.returncode, 1, "a QNN stage that cannot run must fail the bench")
        self.assertEqual(stage["status"], "failed")
        return result, stage, phone

    def test_host_runs_the_qnn_program_in_the_simulator(self):
        with tempfile.TemporaryDirectory() as out:
            result, results = self.bench(
                out,
                "--host",
                "--quality_text=" + os.path.abspath(os.environ["EMMA"]),
                "--quality_tokens=32",
                "--qnn_perplexity",
            )
            self.assertEqual(result.returncode, 0, result.stderr[-3000:])
            (stage,) = results["variants"]
            self.assertEqual(stage["status"], "ok", stage)
            self.assertEqual(stage["qnn"]["soc"], "SM8650")
            run = stage["runs"][0]
            self.assertEqual(run["stats"]["generated_tokens"], 4)
            self.assertEqual(run["stats"]["model_sha256"], stage["model_sha256"])
            # Its perplexity comes from its quantized graph: a random 49,152-token
            # model scores near the vocabulary size, and never below 1.
            perplexity = results["perplexity"]["tiny_qnn"]
            self.assertTrue(1 < perplexity < 10 * 49152, perplexity)
            with open(os.path.join(out, "report.md")) as f:
                self.assertIn(f"| + QNN NPU | {perplexity:.2f} |", f.read())

    def test_phone_of_another_soc_is_refused_before_pushing(self):
        libs = fake_qnn_libraries(tempfile.mkdtemp(), tiny_qnn_manifest()["qnn"]["qairtBuildId"])
        _, stage, phone = self.on_phone("SM8750", libs)
        errors = {r["error"] for r in stage["runs"]}
        self.assertTrue(any("compiled for SM8650 (HTP V75) but the phone is SM8750" in e for e in errors), errors)
        self.assertFalse(os.path.exists(os.path.join(phone, "root/data/local/tmp/llm_ondevice/libQnnHtp.so")))

    def test_qairt_mismatch_is_refused(self):
        libs = fake_qnn_libraries(tempfile.mkdtemp(), "v2.37.0.250724175447")
        _, stage, _ = self.on_phone("SM8650", libs)
        errors = " ".join(r["error"] for r in stage["runs"])
        self.assertIn("QAIRT mismatch", errors)
        self.assertIn(tiny_qnn_manifest()["qnn"]["qairtBuildId"], errors)
        self.assertIn("v2.37.0.250724175447", errors)

    def test_missing_libraries_are_named(self):
        libs = fake_qnn_libraries(tempfile.mkdtemp(), tiny_qnn_manifest()["qnn"]["qairtBuildId"])
        _, stage, _ = self.on_phone("SM8650", [p for p in libs if "Skel" not in p])
        errors = " ".join(r["error"] for r in stage["runs"])
        self.assertIn("--qnn_libs lacks libQnnHtpV75Skel.so", errors)
        self.assertIn("//tools/qnn:android_runtime_sm8650", errors)

    def test_matching_phone_gets_the_libraries_and_the_backend_flag(self):
        libs = fake_qnn_libraries(tempfile.mkdtemp(), tiny_qnn_manifest()["qnn"]["qairtBuildId"])
        _, stage, phone = self.on_phone("SM8650", libs)
        for path in libs:
            pushed = os.path.join(phone, "root/data/local/tmp/llm_ondevice", os.path.basename(path))
            self.assertTrue(os.path.exists(pushed), pushed)
        # The stand-in backend is no arm64 library, so the runner on the
        # phone must say it could not load it (a real one registers QNN).
        errors = " ".join(r["error"] for r in stage["runs"])
        self.assertIn("cannot load --backend_library=", errors)
        self.assertIn("libqnn_executorch_backend.so", errors)


if __name__ == "__main__":
    unittest.main()
