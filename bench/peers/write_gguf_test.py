"""write_gguf.py: the GGUF it writes is our checkpoint, as llama.cpp and OpenVINO GenAI read it.

The Llama 3 fixture (2 layers, llama3 rope scaling, tied embeddings) is
written as F32 and as Q4_1. llama.cpp on the F32 file must pick the same
greedy tokens as our fp32 program: a wrong tensor name, a permuted q/k, a
missing rope factor or an untied head would each change them.
"""

from __future__ import annotations

import json
import os
import subprocess
import unittest

from bench.bench_venv import venv_python
from bench.peers.systems import gguf_worker_argv, run_json
from tools.executorch.testing import workspace_file

PROMPT = [49152, 100, 200, 300, 400, 500, 600, 700]
NEW_TOKENS = 16


def worker(repo: str, script: str, gguf: str) -> dict:
    python = venv_python(repo)
    if not python:
        raise AssertionError(f"@{repo} missing from the runfiles")
    return run_json(gguf_worker_argv(python, script, gguf, PROMPT, NEW_TOKENS, threads=2), timeout=600)


def ours(program: str) -> list[int]:
    result = subprocess.run(
        [
            workspace_file("runtime/llm_main"),
            f"--model={workspace_file(f'models/{program}.pte')}",
            "--prompt_ids=" + ",".join(map(str, PROMPT)),
            f"--max_new_tokens={NEW_TOKENS}",
            "--ignore_eos",
            "--print_ids",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if result.returncode != 0:
        raise AssertionError(f"llm_main failed:\n{result.stderr[-3000:]}")
    return [int(w) for line in result.stdout.splitlines() for w in line.split() if w.isdigit()]


class WriteGgufTest(unittest.TestCase):
    f32 = workspace_file("bench/peers/llama3_tiny_f32.gguf")
    q4_1 = workspace_file("bench/peers/llama3_tiny_q4_1.gguf")

    def test_llama_cpp_on_f32_picks_our_fp32_programs_tokens(self) -> None:
        expected = ours("llama3_tiny_fp32")
        self.assertEqual(len(expected), NEW_TOKENS)
        self.assertEqual(worker("pypi_bench", "llama_cpp_worker.py", self.f32)["tokens"], expected)

    def test_llama_cpp_on_q4_1_starts_like_our_int4_program(self) -> None:
        # The same 4-bit weights, other kernels and activation rounding: the
        # greedy paths start alike and may part later.
        got = worker("pypi_bench", "llama_cpp_worker.py", self.q4_1)["tokens"]
        self.assertEqual(got[:2], ours("llama3_tiny_int4")[:2])

    def test_openvino_reads_q4_1(self) -> None:
        run = worker("pypi_openvino", "openvino_worker.py", self.q4_1)
        self.assertEqual(len(run["tokens"]), NEW_TOKENS)
        self.assertTrue(all(0 <= t < 49280 for t in run["tokens"]))
        self.assertGreater(run["decode_tok_s"], 0)

    def test_metadata_and_layout(self) -> None:
        from gguf import GGUFReader

        reader = GGUFReader(self.q4_1)
        names = {t.name: t for t in reader.tensors}
        with open(workspace_file("models/llama3_tiny/params.json")) as f:
            params = json.load(f)
        # Tied: the head is token_embd; 9 tensors a layer, the final norm, rope factors.
        self.assertNotIn("output.weight", names)
        self.assertEqual(len(names), 1 + 9 * params["n_layers"] + 1 + 1)
        self.assertEqual(names["blk.0.attn_q.weight"].tensor_type.name, "Q4_1")
        self.assertEqual(names["token_embd.weight"].tensor_type.name, "Q8_0")
        self.assertEqual(names["blk.0.attn_norm.weight"].tensor_type.name, "F32")
        self.assertEqual(len(names["rope_freqs.weight"].data), 32 // 2)
        self.assertEqual(len(reader.fields["tokenizer.ggml.tokens"].data), params["vocab_size"])
        self.assertEqual(reader.fields["tokenizer.ggml.bos_token_id"].contents(), 49152)
        self.assertLess(os.path.getsize(self.q4_1), 0.4 * os.path.getsize(self.f32))

    def test_other_architectures_are_refused_with_the_reason(self) -> None:
        model = workspace_file("models/qwen2_5_tiny")
        result = subprocess.run(
            [
                workspace_file("bench/peers/write_gguf"),
                f"--checkpoint={model}/checkpoint.pth",
                f"--params={model}/params.json",
                f"--tokenizer_json={model}/tokenizer.json",
                f"--tokenizer_config={model}/tokenizer_config.json",
                f"--out={os.environ['TEST_TMPDIR']}/qwen.gguf",
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("not a llama architecture", result.stderr)


if __name__ == "__main__":
    unittest.main()
