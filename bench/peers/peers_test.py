"""//bench:peers end to end, briefly: all three systems, the ceiling and the profile.

One round of 8 tokens each. Checks the report's structure, that the three
systems got the same prompt and produced tokens, and properties of the
model that do not depend on speed: the weight bytes a decode step streams and
the number of 4-bit GEMMs a step runs. No speed is asserted.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import unittest

from tools.executorch.testing import workspace_file

NEW_TOKENS = 8
PROMPT_TOKENS = 16
# SmolLM2-135M: 30 layers x 7 linears + the output projection.
# llama_int4: 30 layers x 7 linears in 4 bits, each with an fp32 offset
# term (XNNPACK may fuse some of those into one GEMM), and the 8-bit head.
GEMMS_4BIT_PER_STEP = 30 * 7


def gguf() -> str:
    from runfiles import runfiles

    location = runfiles.Create().Rlocation("pypi/models/SmolLM2-135M-Instruct.Q4_1.gguf")
    if not location or not os.path.exists(location):
        raise FileNotFoundError("SmolLM2 GGUF missing from runfiles: add @pypi//:smollm2_135m_instruct_gguf to data")
    return location


class PeersTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.out = tempfile.mkdtemp()
        result = subprocess.run(
            [
                workspace_file("bench/peers/peers"),
                f"--gguf={gguf()}",
                "--rounds=1",
                "--warmup=0",
                f"--prompt_tokens={PROMPT_TOKENS}",
                f"--new_tokens={NEW_TOKENS}",
                "--profile_steps=4",
                "--bandwidth_mib=64",
                f"--out={cls.out}",
            ],
            capture_output=True,
            text=True,
            timeout=1200,
        )
        if result.returncode != 0:
            raise AssertionError(f"bench/peers failed:\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}")
        with open(os.path.join(cls.out, "results.json")) as f:
            cls.results = json.load(f)
        with open(os.path.join(cls.out, "report.md")) as f:
            cls.report = f.read()

    def test_every_system_ran_the_same_prompt(self) -> None:
        self.assertEqual(len(self.results["prompt_ids"]), PROMPT_TOKENS)
        self.assertEqual(set(self.results["systems"]), {"ours", "executorch_python", "llama_cpp", "llama_cpp_passive"})
        for name, system in self.results["systems"].items():
            self.assertEqual(len(system["runs"]), 1, name)
            median = system["median"]
            for key in ("load_ms", "ttft_ms", "decode_tok_s"):
                self.assertGreater(median[key], 0, f"{name} {key}")
        for name in ("ours", "llama_cpp", "llama_cpp_passive"):
            tokens = self.results["systems"][name]["runs"][0]["tokens"]
            self.assertEqual(len(tokens), NEW_TOKENS, name)
            self.assertTrue(all(0 <= t < 49152 for t in tokens), name)
        llama = self.results["systems"]["llama_cpp"]["runs"][0]
        self.assertEqual(llama["n_vocab"], 49152)
        # llama.cpp's own counters saw the prompt as one batch and one decode per later token.
        self.assertEqual(llama["prefill_tokens_counter"], PROMPT_TOKENS)
        self.assertEqual(llama["decode_tokens_counter"], NEW_TOKENS - 1)

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
        self.assertAlmostEqual(
            c["ours_ceiling_tok_s"], c["bandwidth_gb_s"] * 1e9 / c["ours_bytes_per_token"], delta=1e-6
        )
        self.assertGreater(c["ours_pct_of_ceiling"], 0)
        best = self.results["llama_cpp_best"]
        self.assertEqual(
            best["decode_tok_s"],
            max(self.results["systems"][v]["median"]["decode_tok_s"] for v in ("llama_cpp", "llama_cpp_passive")),
        )

    def test_profile_counts_the_models_gemms(self) -> None:
        profile = self.results["profile"]
        self.assertEqual(profile["events_per_step"]["xnnpack_4bit_gemm"], GEMMS_4BIT_PER_STEP)
        self.assertEqual(profile["events_per_step"]["xnnpack_8bit_gemm"], 1)
        self.assertGreater(profile["events_per_step"]["xnnpack_fp32_gemm"], 0)
        ms = profile["ms_per_decode_step"]
        self.assertGreater(ms["xnnpack_4bit_gemm"], 0)
        self.assertLess(ms["xnnpack_delegate_calls"], ms["total"])

    def test_report(self) -> None:
        self.assertIn("| system | TTFT ms | decode tok/s | load ms | ours: decode x | ours: TTFT x |", self.report)
        for label in ("ours: llm_main", "ExecuTorch Python runtime", "llama.cpp"):
            self.assertIn(label, self.report)
        self.assertIn("## Against the memory-bandwidth ceiling", self.report)
        self.assertIn("## Verdict", self.report)
        self.assertIn("## Where the decode time goes", self.report)
        self.assertRegex(self.report, r"decode: ours is [0-9.]+x llama.cpp's")


if __name__ == "__main__":
    unittest.main()
