"""//bench:peers end to end, briefly: every system in both phases, the limits and the profile.

One round of 8 tokens each. Checks the report's structure, that the systems
got the same prompt and produced tokens, the records' printers, and
properties of the model that do not depend on speed: the weight bytes a
decode step streams and the number of 4-bit GEMMs a step runs. No speed is
asserted.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import tempfile
import unittest

from tools.executorch.testing import workspace_file

NEW_TOKENS = 8
PROMPT_TOKENS = 16
LONG_PROMPT_TOKENS = 40
SYSTEMS = {"ours", "executorch_python", "llama_cpp", "llama_cpp_passive", "openvino"}
# SmolLM2-135M: 30 layers x 7 linears + the output projection.
# llama_int4: 30 layers x 7 linears in 4 bits, each with an fp32 offset
# term (XNNPACK may fuse some of those into one GEMM), and the 8-bit head.
GEMMS_4BIT_PER_STEP = 30 * 7


class PeersTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.out = tempfile.mkdtemp()
        result = subprocess.run(
            [
                workspace_file("bench/peers/peers"),
                "--rounds=1",
                "--warmup=0",
                f"--prompt_tokens={PROMPT_TOKENS}",
                f"--new_tokens={NEW_TOKENS}",
                "--long_rounds=1",
                f"--long_prompt_tokens={LONG_PROMPT_TOKENS}",
                f"--long_new_tokens={NEW_TOKENS}",
                "--profile_steps=4",
                "--bandwidth_mib=64",
                "--output=csv",
                f"--out={cls.out}",
            ],
            capture_output=True,
            text=True,
            timeout=1800,
        )
        if result.returncode != 0:
            raise AssertionError(f"bench/peers failed:\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}")
        cls.stdout = result.stdout
        with open(os.path.join(cls.out, "results.json")) as f:
            cls.results = json.load(f)
        with open(os.path.join(cls.out, "report.md")) as f:
            cls.report = f.read()

    def test_every_system_ran_both_phases_on_the_same_prompt(self) -> None:
        self.assertEqual(len(self.results["prompt_ids"]), PROMPT_TOKENS)
        records = self.results["records"]
        self.assertEqual(
            {(r["phase"], r["system"]) for r in records}, {(p, s) for p in ("chat", "long") for s in SYSTEMS}
        )
        for r in records:
            prompt = PROMPT_TOKENS if r["phase"] == "chat" else LONG_PROMPT_TOKENS
            self.assertEqual(r["prompt_tokens"], prompt, r)
            self.assertEqual(r["new_tokens"], NEW_TOKENS, r)
            for key in ("load_ms", "ttft_ms", "prefill_tok_s", "decode_tok_s"):
                self.assertGreater(r[key], 0, f"{r['system']} {key}")
        for phase in self.results["phases"].values():
            for name, runs in phase["runs"].items():
                self.assertTrue(all(0 <= t < 49152 for t in runs[0]["tokens"]), name)
        llama = self.results["phases"]["chat"]["runs"]["llama_cpp"][0]
        self.assertEqual(llama["n_vocab"], 49152)
        # llama.cpp's own counters saw the prompt as one batch and one decode per later token.
        self.assertEqual(llama["prefill_tokens_counter"], PROMPT_TOKENS)
        self.assertEqual(llama["decode_tokens_counter"], NEW_TOKENS - 1)
        ours = {r["phase"]: r for r in records if r["system"] == "ours"}
        self.assertEqual(ours["chat"]["same_tokens_as_ours"], NEW_TOKENS)

    def test_records_print_as_csv(self) -> None:
        lines = self.stdout.splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("model,phase,system,"))
        rows = list(csv.DictReader(io.StringIO("\n".join(lines[start : start + 1 + len(self.results["records"])]))))
        self.assertEqual(len(rows), len(self.results["records"]))
        self.assertEqual(float(rows[0]["decode_tok_s"]), self.results["records"][0]["decode_tok_s"])

    def test_ceiling_comes_from_the_programs_bytes(self) -> None:
        d = self.results["decode_bytes"]
        # llama_int4: 107M linear weights at 4 bits with bf16 block scales and
        # fp32 block offsets (~67 MB), the 28M-weight head at 8 bits (~28 MB),
        # less the gathered embedding table: ~100 MB.
        self.assertGreater(d["weight_bytes_per_token"], 85e6)
        self.assertLess(d["weight_bytes_per_token"], 115e6)
        self.assertLess(d["weight_bytes_per_token"], d["file_bytes"])
        # 2 (K and V) x 30 layers x 3 KV heads x 64 dims x 4 bytes.
        self.assertEqual(d["kv_bytes_per_position"], 2 * 30 * 3 * 64 * 4)
        self.assertGreater(self.results["bandwidth"]["best_gb_s"], 0.1)
        c = self.results["ceiling"]
        for name in ("ours", "llama_cpp", "openvino"):
            self.assertAlmostEqual(
                c[name]["ceiling_tok_s"], c["bandwidth_gb_s"] * 1e9 / c[name]["bytes_per_token"], delta=1e-6
            )
            self.assertGreater(c[name]["share"], 0)
        chat = {r["system"]: r for r in self.results["records"] if r["phase"] == "chat"}
        self.assertEqual(
            self.results["decode_for_ceiling"]["llama_cpp"],
            max(chat[v]["decode_tok_s"] for v in ("llama_cpp", "llama_cpp_passive")),
        )

    def test_prefill_and_memory_limits(self) -> None:
        p = self.results["prefill_compute"]
        # SmolLM2-135M's decoder linears: 30 x (2 x 576 x 576 + 2 x 576 x 192 + 3 x 576 x 1536) x 2 FLOP.
        self.assertAlmostEqual(p["gflop_per_token"], 30 * (2 * 576 * 576 + 2 * 576 * 192 + 3 * 576 * 1536) * 2 / 1e9)
        self.assertGreater(p["fp32_gemm_gflop_s"], 1)
        self.assertEqual(set(p["by_system"]), {"ours", "executorch_python", "llama_cpp", "openvino"})
        m = self.results["memory"]
        # .pte (~135 MB) + the 2048-position fp32 KV cache (~94 MB), + 15%.
        self.assertAlmostEqual(
            m["budget_mb"], (self.results["decode_bytes"]["file_bytes"] + 2048 * 2 * 30 * 3 * 64 * 4) * 1.15 / 2**20
        )
        self.assertGreater(m["peak_rss_mb"], 0)

    def test_profile_counts_the_models_gemms(self) -> None:
        profile = self.results["profile"]
        self.assertEqual(profile["events_per_step"]["xnnpack_4bit_gemm"], GEMMS_4BIT_PER_STEP)
        self.assertEqual(profile["events_per_step"]["xnnpack_8bit_gemm"], 1)
        self.assertGreater(profile["events_per_step"]["xnnpack_fp32_gemm"], 0)
        ms = profile["ms_per_decode_step"]
        self.assertGreater(ms["xnnpack_4bit_gemm"], 0)
        self.assertLess(ms["xnnpack_delegate_calls"], ms["total"])

    def test_report(self) -> None:
        self.assertIn("| system | TTFT ms | prefill tok/s | decode tok/s | load ms | ours: decode x |", self.report)
        for label in ("ours: llm_main", "ExecuTorch Python runtime", "llama.cpp", "OpenVINO GenAI"):
            self.assertIn(label, self.report)
        for section in (
            "## Chat",
            f"## pp{LONG_PROMPT_TOKENS}+tg{NEW_TOKENS}",
            "## Against the limits",
            "## Verdict",
            "## Where our decode time goes",
            "## Records",
        ):
            self.assertIn(section, self.report)
        self.assertEqual(
            set(self.results["goals"]),
            {"decode_vs_peer", "decode_vs_ceiling", "ttft_vs_llama_cpp", "prefill_vs_every_peer", "memory"},
        )
        self.assertRegex(self.report, r"decode: ours is [0-9.]+x llama cpp's")


if __name__ == "__main__":
    unittest.main()
