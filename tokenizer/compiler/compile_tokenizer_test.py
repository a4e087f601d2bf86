"""compile_tokenizer: deterministic output, and clear refusals of what the runtime cannot do.

TOKENIZER_JSON and TOKENIZER_CONFIG name SmolLM2's tokenizer.json and
tokenizer_config.json; the unsupported variants are edits of them.
"""

from __future__ import annotations

import copy
import json
import os
import unittest

from tokenizer.compiler import compile_tokenizer as ct

LLAMA3_SPECIALS = ("<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>")
# Llama 3.0's format: every message a header turn, contents trimmed, BOS first.
LLAMA3_0_TEMPLATE = (
    "{% for message in messages %}{% set content = '<|start_header_id|>' + message['role'] + "
    "'<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}"
    "{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}{% if add_generation_prompt %}"
    "{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}"
)


def _load(variable: str) -> dict:
    with open(os.environ[variable], encoding="utf-8") as f:
        return json.load(f)


class CompileTokenizerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tokenizer = _load("TOKENIZER_JSON")
        cls.config = _load("TOKENIZER_CONFIG")

    def compile(self, tokenizer_edit=None, config_edit=None) -> ct.CompiledTokenizer:
        tokenizer, config = copy.deepcopy(self.tokenizer), copy.deepcopy(self.config)
        if tokenizer_edit:
            tokenizer_edit(tokenizer)
        if config_edit:
            config_edit(config)
        return ct.compile_tokenizer(tokenizer, config)

    def assertRefused(self, message: str, tokenizer_edit=None, config_edit=None) -> None:
        with self.assertRaises(ct.UnsupportedTokenizerError) as raised:
            self.compile(tokenizer_edit, config_edit)
        self.assertIn(message, str(raised.exception))

    def test_output_is_deterministic(self):
        first, second = ct.serialize(self.compile()), ct.serialize(self.compile())
        self.assertEqual(first, second)
        self.assertEqual(first[:8], b"LLMBPETK")

    def test_smollm2(self):
        compiled = self.compile()
        self.assertEqual(len(compiled.vocab), 49152)
        self.assertEqual(len(compiled.merges), 48900)
        self.assertEqual((compiled.bos_id, compiled.eos_id, compiled.stop_ids), (1, 2, [0, 2]))
        self.assertEqual(compiled.chat.kind, ct.CHAT_CHATML)
        self.assertEqual(
            compiled.chat.default_system_prompt, "You are a helpful AI assistant named SmolLM, trained by Hugging Face"
        )
        self.assertEqual(compiled.vocab[1], b"<|im_start|>")
        self.assertEqual(compiled.byte_ids.count(-1), 21)  # e.g. 0x04, 0xF5..0xFF have no token

    def test_refuses_other_models(self):
        self.assertRefused(
            "model type 'WordPiece' is not supported: only 'BPE'",
            lambda t: t["model"].update(type="WordPiece"),
        )

    def test_refuses_normalizers(self):
        self.assertRefused("normalizer 'NFC' is not supported", lambda t: t.update(normalizer={"type": "NFC"}))

    def test_refuses_other_pre_tokenizers(self):
        self.assertRefused(
            "pre_tokenizer 'Metaspace' is not supported: only ByteLevel",
            lambda t: t.update(pre_tokenizer={"type": "Metaspace"}),
        )
        self.assertRefused("add_prefix_space=True", lambda t: t["pre_tokenizer"].update(add_prefix_space=True))

    @staticmethod
    def _split_on(pattern: str):
        def edit(tokenizer: dict) -> None:
            tokenizer["pre_tokenizer"] = {
                "type": "Sequence",
                "pretokenizers": [
                    {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False},
                    {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
                ],
            }

        return edit

    def test_llama3_and_qwen2_pre_tokenizers(self):
        def llama3(tokenizer: dict) -> None:
            self._split_on(ct._LLAMA3_PATTERN)(tokenizer)
            tokenizer["model"]["ignore_merges"] = True

        compiled = self.compile(llama3)
        self.assertEqual((compiled.pre_tokenizer, compiled.ignore_merges), (ct.PRETOKENIZER_LLAMA3, True))
        prtk = ct.serialize(compiled).split(b"PRTK")[1]
        self.assertEqual(prtk[:12], ct._u32(8, ct.PRETOKENIZER_LLAMA3, ct.BPE_IGNORE_MERGES))
        compiled = self.compile(self._split_on(ct._QWEN2_PATTERN))
        self.assertEqual((compiled.pre_tokenizer, compiled.ignore_merges), (ct.PRETOKENIZER_QWEN2, False))

    def test_refuses_a_split_the_runtime_does_not_implement(self):
        # One character off Llama 3's regex (\p{N}{1,4}): never a silent wrong split.
        self.assertRefused(
            "the runtime implements the Llama 3 and Qwen2 regexes only",
            self._split_on(ct._LLAMA3_PATTERN.replace("{1,3}", "{1,4}")),
        )
        self.assertRefused(
            "only behavior Isolated",
            lambda t: (
                self._split_on(ct._QWEN2_PATTERN)(t),
                t["pre_tokenizer"]["pretokenizers"][0].update(behavior="Removed"),
            ),
        )

    def test_refuses_bpe_options(self):
        self.assertRefused("ignore_merges=True", lambda t: t["model"].update(ignore_merges=True))
        self.assertRefused("byte_fallback=True", lambda t: t["model"].update(byte_fallback=True))

    def test_refuses_stripping_added_tokens(self):
        self.assertRefused("has lstrip=true", lambda t: t["added_tokens"][1].update(lstrip=True))

    def test_refuses_other_chat_templates(self):
        self.assertRefused(
            "chat_template is neither ChatML nor Llama 3's header format",
            config_edit=lambda c: c.update(chat_template="{% for m in messages %}{{ m['content'] }}{% endfor %}"),
        )

    def llama3(self, template: str) -> ct.CompiledTokenizer:
        def add_specials(tokenizer):
            for offset, content in enumerate(LLAMA3_SPECIALS):
                tokenizer["added_tokens"].append(
                    {"id": 49152 + offset, "content": content, "special": True, "normalized": False}
                )

        def llama3_config(config):
            config.update(chat_template=template, bos_token="<|begin_of_text|>", eos_token="<|eot_id|>")

        return self.compile(tokenizer_edit=add_specials, config_edit=llama3_config)

    def test_llama3_0_headers(self):
        compiled = self.llama3(LLAMA3_0_TEMPLATE)
        self.assertEqual(
            compiled.chat, ct.ChatTemplate(ct.CHAT_LLAMA3, None, llama3_flags=ct.LLAMA3_TRIM, bos="<|begin_of_text|>")
        )
        self.assertIn(49156, compiled.stop_ids)  # <|eot_id|>

    def test_llama3_2_headers_with_system_preamble(self):
        with open(os.environ["LLAMA3_TEMPLATE"], encoding="utf-8") as f:
            compiled = self.llama3(f.read())
        self.assertEqual(compiled.chat.kind, ct.CHAT_LLAMA3)
        self.assertEqual(compiled.chat.llama3_flags, ct.LLAMA3_ALWAYS_SYSTEM | ct.LLAMA3_TRIM)
        self.assertEqual(
            compiled.chat.default_system_prompt, "Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n"
        )

    def test_llama3_headers_without_trim_are_told_apart(self):
        compiled = self.llama3(LLAMA3_0_TEMPLATE.replace(" | trim", ""))
        self.assertEqual(compiled.chat.llama3_flags, 0)

    def test_refuses_a_llama3_template_that_differs(self):
        # A header template that ends turns with a newline the runtime does not write.
        self.assertRaisesRegex(
            ct.UnsupportedTokenizerError,
            "As Llama 3: for messages=",
            self.llama3,
            LLAMA3_0_TEMPLATE.replace("'<|eot_id|>'", "'<|eot_id|>\\n'"),
        )

    def test_chatml_without_default_system_prompt(self):
        plain = (
            "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + "
            "'<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
        )
        compiled = self.compile(config_edit=lambda c: c.update(chat_template=plain))
        self.assertEqual(compiled.chat, ct.ChatTemplate(ct.CHAT_CHATML, None))

    def test_no_chat_template(self):
        compiled = self.compile(config_edit=lambda c: c.pop("chat_template"))
        self.assertEqual(compiled.chat.kind, ct.CHAT_NONE)

    def test_unknown_eos_token(self):
        self.assertRefused("eos_token '<|nope|>' is not a token", config_edit=lambda c: c.update(eos_token="<|nope|>"))


if __name__ == "__main__":
    unittest.main()
