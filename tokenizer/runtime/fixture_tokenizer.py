"""Writes a Llama 3 style or Qwen2 style tokenizer.json from SmolLM2's, for tests.

    fixture_tokenizer --style=llama3 --tokenizer_json=tokenizer.json --out=llama3_style.json

No Llama 3 or Qwen tokenizer is available offline, but their pre-tokenizers
and BPE options are what the runtime must reproduce, and those do not depend
on the vocabulary. The fixture keeps SmolLM2's vocabulary, merges, added
tokens and decoder, and swaps in the family's pre-tokenizer exactly as its
tokenizer.json spells it (a Split on the family's regex, then ByteLevel
without one), plus ignore_merges for Llama 3. Hugging Face tokenizers loads
the result, so the parity test can compare the C++ tokenizer with it on the
same corpus as SmolLM2's.
"""

from __future__ import annotations

import json

from absl import app, flags

FLAGS = flags.FLAGS
flags.DEFINE_enum("style", None, ["llama3", "qwen2"], "Which family's pre-tokenizer and BPE options.")
flags.DEFINE_string("tokenizer_json", None, "A byte-level BPE tokenizer.json (SmolLM2's).")
flags.DEFINE_string("out", None, "Where to write the fixture.")
for _name in ("style", "tokenizer_json", "out"):
    flags.mark_flag_as_required(_name)

PATTERNS = {
    "llama3": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    "qwen2": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
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
    return tokenizer


def main(argv: list[str]) -> None:
    del argv
    with open(FLAGS.tokenizer_json, encoding="utf-8") as f:
        tokenizer = json.load(f)
    with open(FLAGS.out, "w", encoding="utf-8") as f:
        json.dump(fixture(tokenizer, FLAGS.style), f, ensure_ascii=False, indent=1, sort_keys=True)


if __name__ == "__main__":
    app.run(main)
