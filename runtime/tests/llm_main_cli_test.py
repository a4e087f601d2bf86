"""llm_main as a user meets it: text in, text out, stats, and every bad input
answered by a clear message and exit code (2 = fix your input, 1 = the model
or runtime failed), never a crash."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import unittest

from tools.executorch.testing import workspace_file


class LlmMainCliTest(unittest.TestCase):
    def setUp(self) -> None:
        self.llm_main = workspace_file("runtime/llm_main")
        self.tiny = workspace_file("models/tiny_8da4w.pte")
        self.tokenizer = workspace_file("tokenizer/runtime/smollm2.tok")
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))

    def run_main(self, *flags: str) -> subprocess.CompletedProcess:
        result = subprocess.run([self.llm_main, *flags], capture_output=True, text=True, timeout=300)
        self.assertNotIn(result.returncode, (-11, -6, 134, 139), f"crashed: {result.stderr}")
        return result

    def write(self, name: str, data: bytes) -> str:
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def assert_error(self, result: subprocess.CompletedProcess, code: int, *phrases: str) -> None:
        self.assertEqual(result.returncode, code, result.stderr)
        for phrase in phrases:
            self.assertIn(phrase, result.stderr)

    def test_text_prompt_streams_text_and_writes_stats(self) -> None:
        stats_path = os.path.join(self.tmp, "stats.json")
        result = self.run_main(
            f"--model={self.tiny}",
            f"--tokenizer={self.tokenizer}",
            "--prompt=Hello there",
            "--max_new_tokens=12",
            "--warmup",
            "--threads=1",
            f"--stats_json={stats_path}",
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(result.stdout.strip(), "no text streamed")
        with open(stats_path) as f:
            stats = json.load(f)
        for key in (
            "model_sha256",
            "load_ms",
            "ttft_ms",
            "prefill_tokens_per_s",
            "decode_tokens_per_s",
            "token_latency_p50_ms",
            "token_latency_p95_ms",
            "peak_rss_mb",
            "decode_allocations",
            "threads",
            "platform",
        ):
            self.assertIn(key, stats)
        self.assertEqual(len(stats["model_sha256"]), 64)
        self.assertEqual(stats["threads"], 1)
        self.assertGreater(stats["warmup_ms"], 0)
        self.assertEqual(stats["decode_allocations"], 0)
        self.assertEqual(stats["platform"], "linux-x86_64")

    def test_usage_errors(self) -> None:
        self.assert_error(self.run_main("--prompt=hi"), 2, "--model is required")
        self.assert_error(self.run_main(f"--model={self.tiny}", "--bogus=1"), 2, "unknown flag --bogus")
        self.assert_error(self.run_main(f"--model={self.tiny}", "--prompt=hi"), 2, "needs --tokenizer")
        self.assert_error(self.run_main(f"--model={self.tiny}", "--prompt_ids=1,x"), 2, "'x' is not an integer")
        # Counts and seeds are whole numbers in range, never rounded or wrapped.
        self.assert_error(
            self.run_main(f"--model={self.tiny}", "--prompt_ids=1", "--threads=1.5"),
            2,
            "--threads=1.5 is not a whole number",
        )
        self.assert_error(
            self.run_main(f"--model={self.tiny}", "--prompt_ids=1", "--seed=-1"), 2, "--seed=-1 is out of range"
        )
        self.assert_error(
            self.run_main(f"--model={self.tiny}", "--prompt_ids=1", "--top_p=0"), 2, "--top_p must be in (0, 1]"
        )
        self.assert_error(
            self.run_main(f"--model={self.tiny}", "--prompt_ids=1", "--speculative=draft_model"),
            2,
            "--speculative=draft_model is not a mode: use off, prompt_lookup or draft",
        )
        self.assert_error(
            self.run_main(f"--model={self.tiny}", "--prompt_ids=1", "--draft_tokens=0"), 2, "--draft_tokens=0"
        )

    def test_speculation_on_a_one_row_program_is_off_with_a_note(self) -> None:
        # The tiny program returns the last position's logits only: the reply
        # is plain decoding's, and stderr and the stats say why.
        ids = ["--prompt_ids=1,2,3,1,2,3,1,2", "--max_new_tokens=8", "--ignore_eos", "--threads=1"]
        plain = self.run_main(f"--model={self.tiny}", *ids)
        stats_path = os.path.join(self.tmp, "speculative.json")
        asked = self.run_main(f"--model={self.tiny}", *ids, "--speculative=prompt_lookup", f"--stats_json={stats_path}")
        self.assertEqual(asked.returncode, 0, asked.stderr)
        self.assertEqual(asked.stdout, plain.stdout)
        self.assertIn("speculative decoding off (the program returns one row of logits", asked.stderr)
        with open(stats_path) as f:
            stats = json.load(f)
        self.assertTrue(stats["speculation"].startswith("off (the program returns one row"))
        self.assertEqual(stats["draft_calls"], 0)
        self.assertEqual(stats["forward_calls"], 7)

    def test_missing_and_corrupt_tokenizer(self) -> None:
        missing = os.path.join(self.tmp, "nope.tok")
        self.assert_error(self.run_main(f"--model={self.tiny}", f"--tokenizer={missing}", "--prompt=hi"), 2, missing)
        with open(self.tokenizer, "rb") as f:
            data = f.read()
        cut = self.write("cut.tok", data[: len(data) // 2])
        self.assert_error(self.run_main(f"--model={self.tiny}", f"--tokenizer={cut}", "--prompt=hi"), 2, cut)

    def test_missing_truncated_and_corrupt_program(self) -> None:
        self.assert_error(
            self.run_main("--model=/nonexistent/x.pte", "--prompt_ids=1"), 1, "cannot open /nonexistent/x.pte"
        )
        with open(self.tiny, "rb") as f:
            data = f.read()
        truncated = self.write("truncated.pte", data[: len(data) // 2])
        self.assert_error(self.run_main(f"--model={truncated}", "--prompt_ids=1"), 1, "truncated or corrupt")

    def test_damaged_program_is_refused_naming_both_hashes(self) -> None:
        with open(self.tiny, "rb") as f:
            data = bytearray(f.read())
        with open(self.tiny.removesuffix(".pte") + ".manifest.json") as f:
            manifest = f.read()
        expected = json.loads(manifest)["sha256"]
        middle = len(data) // 2
        data[middle : middle + 64] = bytes(b ^ 0xFF for b in data[middle : middle + 64])
        damaged = self.write("damaged.pte", bytes(data))
        self.write("damaged.manifest.json", manifest.encode())
        result = self.run_main(f"--model={damaged}", "--prompt_ids=1,2,3", "--max_new_tokens=2")
        self.assert_error(result, 1, "is damaged", expected, "its sha256 is ")
        # Without the check it loads (structure is intact) and runs on the damaged weights.
        result = self.run_main(
            f"--model={damaged}", "--prompt_ids=1,2,3", "--max_new_tokens=2", "--skip_integrity_check", "--stats_json=-"
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn('"integrity": "skipped"', result.stderr)
        # The original, found beside its manifest, is verified.
        result = self.run_main(f"--model={self.tiny}", "--prompt_ids=1,2,3", "--max_new_tokens=2", "--stats_json=-")
        self.assertIn('"integrity": "verified"', result.stderr)
        # A program alone runs unverified, and says so; --require_manifest refuses it.
        with open(self.tiny, "rb") as f:
            alone = self.write("alone.pte", f.read())
        result = self.run_main(f"--model={alone}", "--prompt_ids=1,2,3", "--max_new_tokens=2", "--stats_json=-")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"note: {alone} has no manifest", result.stderr)
        self.assertIn("runs unverified", result.stderr)
        self.assertIn('"integrity": "no_manifest"', result.stderr)
        result = self.run_main(f"--model={alone}", "--prompt_ids=1", "--require_manifest")
        self.assert_error(result, 1, f"{alone} has no manifest", "drop --require_manifest")
        # An explicit manifest that is missing is an error, not a silent skip.
        result = self.run_main(f"--model={self.tiny}", "--manifest", "/nonexistent.json", "--prompt_ids=1")
        self.assert_error(result, 1, "cannot read the manifest /nonexistent.json")

    def test_flags_take_a_separate_value_and_help_always_prints(self) -> None:
        result = self.run_main("--model", self.tiny, "--prompt_ids", "1,2,3", "--max_new_tokens", "3", "--print_ids")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(len(result.stdout.split()), 3)
        result = self.run_main("--bogus", "--help")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("usage: llm_main", result.stdout)
        self.assert_error(self.run_main(f"--model={self.tiny}", "--threads"), 2, "--threads needs a value")

    def test_unknown_operator_is_named(self) -> None:
        with open(self.tiny, "rb") as f:
            data = f.read()
        # Same length, so the flatbuffer stays valid; only the op is unknown.
        renamed = data.replace(b"llama::custom_sdpa", b"llama::custom_sdpz")
        self.assertNotEqual(renamed, data)
        program = self.write("unknown_op.pte", renamed)
        result = self.run_main(f"--model={program}", "--prompt_ids=1")
        self.assert_error(result, 1, "llama::custom_sdpz", "no kernel for")

    def test_prompt_longer_than_context(self) -> None:
        ids = ",".join(["42"] * 300)
        self.assert_error(
            self.run_main(f"--model={self.tiny}", f"--prompt_ids={ids}"), 2, "300 tokens", "--truncate_prompt"
        )
        result = self.run_main(
            f"--model={self.tiny}", f"--prompt_ids={ids}", "--truncate_prompt", "--max_new_tokens=4", "--print_ids"
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(len(result.stdout.split()), 4)


if __name__ == "__main__":
    unittest.main()
