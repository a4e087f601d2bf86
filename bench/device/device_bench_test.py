"""//bench:device end to end against the emulated phone (fake_adb.py).

The phone runs the real linux-arm64 runner under qemu, so these runs check
pushing, version checks, thermal reads, cool-down, stats collection and the
report, on the tiny plan. A second test unplugs the phone mid-run.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import tempfile
import unittest

from tools.executorch.testing import workspace_file


def arm64_libraries() -> list[str]:
    root = os.environ["TEST_SRCDIR"]
    found = {}
    for path in glob.glob(os.path.join(root, "**", "libexecutorch*.so"), recursive=True):
        if "aarch64" in path:
            found.setdefault(os.path.basename(path), path)
    return sorted(found.values())


class DeviceBenchTest(unittest.TestCase):
    def run_bench(self, phone_home: str, out: str, runs: int, plan: str = "tiny") -> subprocess.CompletedProcess:
        env = dict(os.environ, FAKE_ADB_HOME=phone_home)
        return subprocess.run(
            [
                workspace_file("bench/device/device"),
                f"--adb={workspace_file('bench/device/fake_adb')}",
                f"--plan={plan}",
                f"--runs={runs}",
                "--warmup=1",
                "--prompt_tokens=16",
                "--new_tokens=8",
                "--cooldown_c=1",
                "--cooldown_timeout_s=3",
                f"--phone_runner={workspace_file('runtime/llm_main_linux_arm64')}",
                "--phone_libs=" + ",".join(arm64_libraries()),
                f"--out={out}",
                "--quality_text=" + os.path.abspath(os.environ["EMMA"]),
                "--quality_tokens=32",
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=1200,
        )

    def test_emulated_phone_end_to_end(self) -> None:
        with tempfile.TemporaryDirectory() as phone, tempfile.TemporaryDirectory() as out:
            result = self.run_bench(phone, out, runs=2)
            self.assertEqual(result.returncode, 0, result.stderr[-3000:])
            with open(os.path.join(out, "results.json")) as f:
                results = json.load(f)
            env = results["environment"]
            self.assertEqual(env["kind"], "phone")
            self.assertEqual(env["device"], "llm-ondevice qemu-arm64 (emulated phone)")
            self.assertEqual(env["os"], "Android 14 (SDK 34)")
            self.assertEqual(
                [v["stage"] for v in results["variants"]],
                ["fp32 baseline", "+ int4 (8da4w, XNNPACK)", "int4 without the static arena"],
            )
            for variant in results["variants"]:
                self.assertEqual(variant["status"], "ok")
                self.assertEqual(len(variant["runs"]), 2)
                for run in variant["runs"]:
                    self.assertEqual(run["stats"]["platform"], "linux-aarch64")
                    self.assertEqual(run["stats"]["generated_tokens"], 8)
                    self.assertEqual(run["stats"]["model_sha256"], variant["model_sha256"])
                    # The pushed manifest was found and the pushed program matched it.
                    self.assertEqual(run["stats"]["integrity"], "verified")
                    self.assertIn("thermal_zone0:cpu-thermal", run["thermal_before"])
                    # The emulated SoC heats up with each run.
                    self.assertGreater(
                        run["thermal_after"]["thermal_zone0:cpu-thermal"],
                        run["thermal_before"]["thermal_zone0:cpu-thermal"],
                    )
                summary = variant["summary"]
                self.assertEqual(summary["runs_ok"], 2)
                self.assertGreater(summary["decode_tokens_per_s"]["median"], 0)
                self.assertLessEqual(summary["decode_tokens_per_s"]["p95"], summary["decode_tokens_per_s"]["median"])
                if variant["stage"] == "int4 without the static arena":
                    # malloc'd temp memory: our attention asks for scratch every layer.
                    self.assertGreater(min(summary["decode_allocations"]), 0)
                else:
                    self.assertEqual(summary["decode_allocations"], [0])
            with open(os.path.join(out, "report.md")) as f:
                report = f.read()
            self.assertIn("| stage | perplexity | TTFT ms | decode tok/s |", report)
            # Both tiny programs are scored on the host; the int4 stage is
            # compared with fp32's.
            self.assertEqual(sorted(results["perplexity"]), ["tiny_8da4w", "tiny_fp32"])
            self.assertRegex(report, r"\| \+ int4 \(8da4w, XNNPACK\) \| [0-9.]+ \([+-][0-9.]+%\) \|")
            self.assertIn("| decode allocs |", report)
            self.assertIn("checked the program's sha256 against its manifest", report)
            self.assertIn("| + int4 (8da4w, XNNPACK) |", report)
            self.assertIn("phone llm-ondevice qemu-arm64", report)
            for plot in ("decode_tokens_per_s.png", "token_latency.png"):
                with open(os.path.join(out, plot), "rb") as f:
                    self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", plot)
                self.assertIn(f"]({plot})", report)

    def test_every_hugging_face_family_runs_on_the_phone(self) -> None:
        with tempfile.TemporaryDirectory() as phone, tempfile.TemporaryDirectory() as out:
            result = self.run_bench(phone, out, runs=1, plan="hf_tiny")
            self.assertEqual(result.returncode, 0, result.stderr[-3000:])
            with open(os.path.join(out, "results.json")) as f:
                variants = json.load(f)["variants"]
            self.assertEqual(
                [v["stage"] for v in variants],
                [f"{family} {kind}" for family in ("Llama 3", "Qwen2.5", "Qwen3") for kind in ("fp32", "int4")],
            )
            for variant in variants:
                self.assertEqual(variant["status"], "ok", variant.get("error"))
                (run,) = variant["runs"]
                self.assertEqual(run["stats"]["generated_tokens"], 8)
                self.assertEqual(run["stats"]["integrity"], "verified")

    def test_disconnect_mid_run_keeps_finished_runs(self) -> None:
        with tempfile.TemporaryDirectory() as phone, tempfile.TemporaryDirectory() as out:
            # 1 warm-up + 2 measured runs of fp32, then the cable is pulled
            # during the int4 variant.
            with open(os.path.join(phone, "disconnect_after"), "w") as f:
                f.write("4\n")
            result = self.run_bench(phone, out, runs=2)
            self.assertEqual(result.returncode, 1)
            with open(os.path.join(out, "results.json")) as f:
                results = json.load(f)
            fp32, int4, _ = results["variants"]
            self.assertEqual(fp32["status"], "ok")
            self.assertEqual(fp32["summary"]["runs_ok"], 2)
            self.assertEqual(int4["status"], "failed")
            self.assertEqual(len(int4["runs"]), 2)
            self.assertTrue(any("not found" in r.get("error", "") for r in int4["runs"]))
            with open(os.path.join(out, "report.md")) as f:
                report = f.read()
            self.assertIn("Failures:", report)
            self.assertIn("failed", report)


if __name__ == "__main__":
    unittest.main()
