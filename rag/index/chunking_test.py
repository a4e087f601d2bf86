"""rag/index/chunking.py: budgets, exact offsets, overlap, determinism, bad input."""

from __future__ import annotations

import itertools
import os
import subprocess
import tempfile
import unittest

from rag.index.chunking import DocumentError, chunk_document, wordpiece_counter
from tools.python.runfile import runfile

TOKENIZER_JSON = runfile(os.environ["MINILM_TOKENIZER"])
CORPUS = os.environ["CORPUS"].split(",")


def _tokens(tokenizer, text: str) -> int:
    return len(tokenizer.encode(text, add_special_tokens=False).ids)


class ChunkingTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.tokenizer = wordpiece_counter(TOKENIZER_JSON)

    def chunk(self, data: bytes, chunk_tokens: int = 64, overlap_tokens: int = 8):
        return chunk_document(data, "doc.txt", self.tokenizer, chunk_tokens, overlap_tokens)

    def test_short_paragraphs_share_a_chunk(self) -> None:
        data = b"First paragraph here.\n\nSecond one, also short.\n\nThird."
        chunks = self.chunk(data)
        self.assertEqual(len(chunks), 1)
        self.assertEqual((chunks[0].start, chunks[0].end), (0, len(data)))

    def test_long_paragraph_is_cut_within_budget_with_overlap(self) -> None:
        words = [f"word{i} is here." for i in range(200)]
        data = " ".join(words).encode()
        chunks = self.chunk(data, chunk_tokens=64, overlap_tokens=8)
        self.assertGreater(len(chunks), 3)
        for previous, chunk in itertools.pairwise(chunks):
            self.assertLess(chunk.start, previous.end, "consecutive chunks overlap")
            overlap = data[chunk.start : previous.end].decode()
            self.assertLessEqual(_tokens(self.tokenizer, overlap), 8)
            self.assertGreater(chunk.end, previous.end)

    def test_real_novel_budgets_offsets_and_coverage(self) -> None:
        for path in CORPUS:
            with open(runfile(path), "rb") as f:
                data = f.read()
            chunks = self.chunk(data, chunk_tokens=128, overlap_tokens=16)
            self.assertEqual(chunks, self.chunk(data, chunk_tokens=128, overlap_tokens=16), "deterministic")
            covered = bytearray(len(data))
            for chunk in chunks:
                text = data[chunk.start : chunk.end].decode("utf-8")
                self.assertEqual(_tokens(self.tokenizer, text), chunk.tokens, "exact WordPiece count")
                self.assertLessEqual(chunk.tokens, 126, "[CLS] + text + [SEP] <= 128")
                self.assertFalse(text[0].isspace() or text[-1].isspace())
                covered[chunk.start : chunk.end] = b"\1" * (chunk.end - chunk.start)
            uncovered = bytes(c for c, flag in zip(data, covered, strict=True) if not flag)
            self.assertEqual(uncovered.strip(), b"", "every word is in some chunk")
            starts = [c.start for c in chunks]
            self.assertEqual(starts, sorted(set(starts)))

    def test_paragraphs_are_not_split_when_they_fit(self) -> None:
        paragraphs = [" ".join(["alpha beta gamma"] * 6) for _ in range(12)]
        data = "\n\n".join(paragraphs).encode()
        chunks = self.chunk(data, chunk_tokens=64, overlap_tokens=0)
        boundaries = {0, len(data)}
        position = 0
        for p in paragraphs:
            boundaries.update({position, position + len(p)})
            position += len(p) + 2
        for chunk in chunks:
            self.assertIn(chunk.start, boundaries)
            self.assertIn(chunk.end, boundaries)

    def test_bad_documents_have_clear_errors(self) -> None:
        for data, expected in (
            (b"", "empty"),
            (b" \n\n\t\n", "empty"),
            ("Caf\u00e9 au lait".encode("latin-1"), "not UTF-8"),
        ):
            with self.assertRaises(DocumentError) as raised:
                self.chunk(data)
            self.assertIn(expected, str(raised.exception))
            self.assertIn("doc.txt", str(raised.exception))

    def test_the_index_action_fails_clearly_on_bad_documents(self) -> None:
        # What a rag_index build prints for them (chunk_document is its action).
        with tempfile.TemporaryDirectory() as tmp:
            for name, data, expected in (
                ("empty.txt", b"\n\n", "rag_index: error: empty.txt is empty; remove it from `docs`"),
                ("latin1.txt", "na\u00efve".encode("latin-1"), "rag_index: error: latin1.txt is not UTF-8 (byte 2"),
            ):
                path = os.path.join(tmp, name)
                with open(path, "wb") as f:
                    f.write(data)
                result = subprocess.run(
                    [runfile("rag/index/chunk_document"), "--document", path, "--name", name, "--tokenizer", TOKENIZER_JSON,
                     "--chunk_tokens", "256", "--overlap_tokens", "32", "--out_texts", path + ".jsonl", "--out_chunks", path + ".json"],
                    capture_output=True, text=True, timeout=120,
                )  # fmt: skip
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(expected, result.stderr)
        self.assertIn("iconv", result.stderr)

    def test_bad_settings_are_refused(self) -> None:
        with self.assertRaises(ValueError):
            self.chunk(b"text", chunk_tokens=512)
        with self.assertRaises(ValueError):
            self.chunk(b"text", chunk_tokens=64, overlap_tokens=40)


if __name__ == "__main__":
    unittest.main()
