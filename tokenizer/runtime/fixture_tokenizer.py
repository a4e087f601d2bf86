"""Writes a Llama 3 style or Qwen2 style tokenizer.json and tokenizer_config.json from SmolLM2's, for tests.

    fixture_tokenizer --style=llama3 --tokenizer_json=tokenizer.json \
        --chat_template=fixtures/llama3_chat_template.jinja --out=tokenizer.json --out_config=tokenizer_config.json

No Llama 3 or Qwen tokenizer is available offline, but their pre-tokenizers
and BPE options are what the runtime must reproduce, and those do not depend
on the vocabulary. The fixture keeps SmolLM2's vocabulary, merges, added
tokens and decoder, and swaps in the family's pre-tokenizer exactly as its
tokenizer.json spells it (a Split on the family's regex, then ByteLevel
without one), plus ignore_merges for Llama 3. The Llama 3 style gains Llama
3's special tokens after SmolLM2's vocabulary, and its config names them as
bos and eos; the Qwen2 style keeps SmolLM2's ChatML tokens, which are Qwen's.
Hugging Face tokenizers loads the result, so the parity test can compare the
C++ tokenizer with it on the same corpus as SmolLM2's.
"""

from __future__ import annotations

import json

from absl import app, flags

FLAGS = flags.FLAGS
flags.DEFINE_enum("style", None, ["llama3", "qwen2"], "Which family's pre-tokenizer and BPE options.")
flags.DEFINE_string("tokenizer_json", None, "A byte-level BPE tokenizer.json (SmolLM2's).")
flags.DEFINE_string("chat_template", None, "The fixture's chat template (Jinja).")
flags.DEFINE_string("out", None, "Where to write the fixture's tokenizer.json.")
flags.DEFINE_string("out_config", None, "Where to write its tokenizer_config.json.")
for _name in ("style", "tokenizer_json", "chat_template", "out", "out_config"):
    flags.mark_flag_as_required(_name)

PATTERNS = {
    "llama3": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    "qwen2": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
}


# Llama 3's special tokens, appended after the vocabulary in this order.
LLAMA3_SPECIALS = ("<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>")
SPECIAL_TOKENS = {
    "llama3": {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
    "qwen2": {"bos_token": None, "eos_token": "<|im_end|>"},
}


def fixture(tokenizer: dict, style: str) -> dict:
    tokenizer = json.loads(json.dumps(tokenizer))
    tokenizer["pre_tokenizer"] = {
        "type": "Sequence",
        "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": PATTERNS[style]}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
        ],
    }
    tokenizer["model"]["ignore_merges"] = style == "llama3"
    if style == "llama3":
        next_id = len(tokenizer["model"]["vocab"])
        for offset, content in enumerate(LLAMA3_SPECIALS):
            tokenizer["added_tokens"].append(
                {
                    "id": next_id + offset,
                    "content": content,
                    "single_word": False,
                    "lstrip": False,
                    "rstrip": False,
                    "normalized": False,
                    "special": True,
                }
            )
    return tokenizer


def main(argv: list[str]) -> None:
    del argv
    with open(FLAGS.tokenizer_json, encoding="utf-8") as f:
        tokenizer = json.load(f)
    with open(FLAGS.chat_template, encoding="utf-8") as f:
        chat_template = f.read()
    with open(FLAGS.out, "w", encoding="utf-8") as f:
        json.dump(fixture(tokenizer, FLAGS.style), f, ensure_ascii=False, indent=1, sort_keys=True)
    with open(FLAGS.out_config, "w", encoding="utf-8") as f:
        json.dump({**SPECIAL_TOKENS[FLAGS.style], "chat_template": chat_template}, f, indent=2, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    app.run(main)
