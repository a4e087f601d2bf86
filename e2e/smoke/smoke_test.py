"""The program and the index this workspace built with llm_ondevice's rules are real and consistent."""

from __future__ import annotations

import hashlib
import json
import unittest

from rag.index import flat_index_format
from tools.executorch.pte_runner import PteSession


def _sha256(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class SmokeTest(unittest.TestCase):
    def test_program_runs_with_this_workspaces_tokenizer(self) -> None:
        session = PteSession("tiny_fp32.pte", "tokenizer.json", "tokenizer_config.json")
        self.assertEqual(session.limits.max_context_len, 128)
        # tokenizer_config.json names <|im_start|> (id 1) and <|im_end|> (id 2).
        self.assertEqual(session.limits.bos_id, 1)
        self.assertIn(2, session.limits.eos_ids)
        prompt = session.encode(session.chat_prompt("Hello"))
        tokens = session.greedy(prompt, max_new_tokens=8)
        self.assertEqual(len(tokens), 8)
        self.assertTrue(all(0 <= t < 512 for t in tokens), tokens)

    def test_hugging_face_folder_became_a_program(self) -> None:
        session = PteSession("unseen_int4.pte", "tokenizer.json", "tokenizer_config.json")
        self.assertEqual(session.limits.max_context_len, 128)
        tokens = session.greedy(session.encode(session.chat_prompt("Hello")), max_new_tokens=8)
        self.assertEqual(len(tokens), 8)
        self.assertTrue(all(0 <= t < 512 for t in tokens), tokens)
        with open("unseen_int4.manifest.json", encoding="utf-8") as f:
            manifest = json.load(f)
        self.assertEqual((manifest["architecture"]["nLayers"], manifest["architecture"]["dim"]), (3, 96))

    def test_manifest_describes_the_program(self) -> None:
        with open("tiny_fp32.manifest.json", encoding="utf-8") as f:
            manifest = json.load(f)
        text = json.dumps(manifest)
        self.assertIn(_sha256("tiny_fp32.pte"), text)

    def test_index_covers_the_notes_and_names_its_embedder(self) -> None:
        index = flat_index_format.read("notes.flat")
        self.assertEqual([d.name for d in index.documents], ["notes.txt"])
        self.assertEqual(index.embedder_sha256.hex(), _sha256("minilm_fp32.pte"))
        with open("notes.txt", "rb") as f:
            notes = f.read()
        for chunk in index.chunks:
            self.assertEqual(chunk.text.encode("utf-8"), notes[chunk.start : chunk.end])
            self.assertLessEqual(chunk.tokens, 64)  # the rule's chunk_tokens
        covered = " ".join(chunk.text for chunk in index.chunks)
        for paragraph in notes.decode("utf-8").split("\n\n"):
            self.assertIn(paragraph.strip(), covered)
        self.assertEqual(index.vectors.shape, (len(index.chunks), 384))


if __name__ == "__main__":
    unittest.main()
