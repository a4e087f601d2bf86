"""BOS/EOS ids: what the runners stop on, and clear errors for a config that names unknown tokens."""

from __future__ import annotations

import json
import os
import tempfile
import unittest

from tools.executorch.export.errors import ExportError
from tools.executorch.export.special_tokens import load_special_tokens


class SpecialTokensTest(unittest.TestCase):
    def write(self, added: dict[str, int], config: dict) -> tuple[str, str]:
        folder = tempfile.mkdtemp()
        tokenizer, tokenizer_config = os.path.join(folder, "tokenizer.json"), os.path.join(folder, "config.json")
        with open(tokenizer, "w") as f:
            json.dump({"added_tokens": [{"content": k, "id": v} for k, v in added.items()]}, f)
        with open(tokenizer_config, "w") as f:
            json.dump(config, f)
        return tokenizer, tokenizer_config

    def test_chat_model_stops_on_its_turn_end_and_end_of_text(self):
        paths = self.write(
            {"<|endoftext|>": 0, "<|im_start|>": 1, "<|im_end|>": 2},
            {"bos_token": "<|im_start|>", "eos_token": "<|im_end|>", "chat_template": "{{ x }}"},
        )
        tokens = load_special_tokens(*paths)
        self.assertEqual((tokens.bos_id, tokens.eos_ids, tokens.has_chat_template), (1, [0, 2], True))
        self.assertEqual(json.loads(tokens.runtime_metadata()), {"get_bos_id": 1, "get_eos_ids": [0, 2]})
        self.assertEqual(
            json.loads(tokens.runtime_metadata(logit_rows=8)),
            {"get_bos_id": 1, "get_eos_ids": [0, 2], "get_logit_rows": 8},
        )

    def test_llama3_spelling_and_added_token_records(self):
        paths = self.write(
            {"<|begin_of_text|>": 128000, "<|end_of_text|>": 128001, "<|eot_id|>": 128009},
            {"bos_token": {"content": "<|begin_of_text|>"}, "eos_token": "<|eot_id|>"},
        )
        tokens = load_special_tokens(*paths)
        self.assertEqual((tokens.bos_id, tokens.eos_ids, tokens.has_chat_template), (128000, [128001, 128009], False))

    def test_no_bos_is_minus_one(self):
        tokens = load_special_tokens(*self.write({"</s>": 2}, {"eos_token": "</s>"}))
        self.assertEqual((tokens.bos_id, tokens.eos_ids), (-1, [2]))

    def test_a_token_the_tokenizer_lacks_names_both_files(self):
        tokenizer, config = self.write({"</s>": 2}, {"bos_token": "<s>", "eos_token": "</s>"})
        with self.assertRaises(ExportError) as raised:
            load_special_tokens(tokenizer, config)
        for needle in ("bos_token '<s>'", tokenizer, config):
            self.assertIn(needle, str(raised.exception))


if __name__ == "__main__":
    unittest.main()
