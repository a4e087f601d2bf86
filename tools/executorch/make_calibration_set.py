"""Tokenizes passages of a text into a calibration set for post-training quantization.

One invocation is one Bazel action (see private/calibration_set.bzl). The
passages are the text's paragraphs that hold at least --min_tokens tokens,
cut at --max_tokens, taken at an even stride through the whole text so the set
covers it end to end rather than its first chapter. The output is byte-stable:
same text, tokenizer and flags give the same file.
"""

from __future__ import annotations

import json
import sys

from absl import app, flags

from tools.executorch.export.digest import sha256_of

FLAGS = flags.FLAGS
flags.DEFINE_string("text", None, "UTF-8 text, paragraphs separated by blank lines.")
flags.DEFINE_string("tokenizer", None, "tokenizer.json of the model being calibrated.")
flags.DEFINE_integer("passages", 256, "How many passages to keep.")
flags.DEFINE_integer("min_tokens", 32, "Shortest paragraph that counts as a passage.")
flags.DEFINE_integer("max_tokens", 96, "Passages are cut at this many tokens.")
flags.DEFINE_string("out", None, "Output JSON.")
for _name in ("text", "tokenizer", "out"):
    flags.mark_flag_as_required(_name)


def select_passages(paragraph_ids: list[list[int]], count: int, min_tokens: int, max_tokens: int) -> list[list[int]]:
    eligible = [ids[:max_tokens] for ids in paragraph_ids if len(ids) >= min_tokens]
    if len(eligible) < count:
        raise ValueError(
            f"the text has {len(eligible)} paragraphs of at least {min_tokens} tokens but {count} passages were "
            "asked for: lower passages/min_tokens or use a longer text"
        )
    stride = len(eligible) / count
    return [eligible[int(i * stride)] for i in range(count)]


def main(argv: list[str]) -> None:
    del argv
    from tokenizers import Tokenizer

    if FLAGS.passages < 1 or not 1 <= FLAGS.min_tokens <= FLAGS.max_tokens:
        sys.exit("make_calibration_set: error: need passages >= 1 and 1 <= min_tokens <= max_tokens")
    try:
        with open(FLAGS.text, encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError as e:
        sys.exit(f"make_calibration_set: error: {FLAGS.text} is not UTF-8 ({e}); convert it first")
    tokenizer = Tokenizer.from_file(FLAGS.tokenizer)
    paragraphs = [p.strip() for p in text.split("\n\n") if p.strip()]
    ids = [tokenizer.encode(p, add_special_tokens=False).ids for p in paragraphs]
    try:
        passages = select_passages(ids, FLAGS.passages, FLAGS.min_tokens, FLAGS.max_tokens)
    except ValueError as e:
        sys.exit(f"make_calibration_set: error: {FLAGS.text}: {e}")
    record = {
        "text_sha256": sha256_of(FLAGS.text),
        "tokenizer_sha256": sha256_of(FLAGS.tokenizer),
        "tokens": sum(len(p) for p in passages),
        "passages": passages,
    }
    with open(FLAGS.out, "w") as f:
        json.dump(record, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    app.run(main)
