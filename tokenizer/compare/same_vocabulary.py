"""Checks that two Hugging Face tokenizers give every token id the same text.

A speculative draft program proposes token ids and the target program reads
them, so the two must agree on what each id means: a draft exported with
another tokenizer would be verified against the wrong tokens, and every draft
would be rejected, or worse, accepted by chance. The vocabulary (the model's
tokens and the added special tokens) decides that; merges and the
pre-tokenizer only decide which ids a text becomes, which the target's
tokenizer does alone. Writes --out only when the two agree, so a build that
pairs the programs (llm_chat's draft) fails otherwise.
"""

from __future__ import annotations

import json
import sys

from absl import app, flags

FLAGS = flags.FLAGS


def _define_flags() -> None:
    flags.DEFINE_string("tokenizer", None, "The target program's tokenizer.json.", required=True)
    flags.DEFINE_string("draft_tokenizer", None, "The draft program's tokenizer.json.", required=True)
    flags.DEFINE_string("program", "the program", "The target, as named in the error.")
    flags.DEFINE_string("draft", "the draft", "The draft, as named in the error.")
    flags.DEFINE_string("out", None, "Written with a one-line summary when the vocabularies agree.", required=True)


def vocabulary(tokenizer: dict) -> dict[int, str]:
    """Token id -> token text, from a tokenizer.json's model and added tokens."""
    vocab = tokenizer.get("model", {}).get("vocab")
    if not isinstance(vocab, dict):
        raise ValueError("it has no model.vocab table (only BPE and WordPiece tokenizers carry one)")
    ids = {int(i): text for text, i in vocab.items()}
    for added in tokenizer.get("added_tokens", []):
        ids[int(added["id"])] = added["content"]
    return ids


def _show(text: str | None) -> str:
    return "missing" if text is None else repr(text)


def first_difference(program: dict[int, str], draft: dict[int, str]) -> str:
    """Empty when both map every id alike, else the lowest id they disagree on."""
    for i in sorted(set(program) | set(draft)):
        mine, theirs = program.get(i), draft.get(i)
        if mine != theirs:
            return f"token id {i} is {_show(mine)} in the program's tokenizer and {_show(theirs)} in the draft's"
    return ""


def _load(path: str, what: str) -> dict[int, str]:
    try:
        with open(path, encoding="utf-8") as f:
            return vocabulary(json.load(f))
    except (OSError, ValueError, KeyError, TypeError) as error:
        sys.exit(f"same_vocabulary: cannot read {what}'s tokenizer {path}: {error}")


def main(argv: list[str]) -> None:
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {argv[1:]}")
    program = _load(FLAGS.tokenizer, FLAGS.program)
    draft = _load(FLAGS.draft_tokenizer, FLAGS.draft)
    difference = first_difference(program, draft)
    if difference:
        sys.exit(
            f"same_vocabulary: the draft {FLAGS.draft} cannot draft for {FLAGS.program}: {difference} "
            f"({len(program)} and {len(draft)} tokens). A draft proposes token ids, so pair programs "
            "exported from checkpoints with the same tokenizer."
        )
    with open(FLAGS.out, "w", encoding="utf-8") as out:
        out.write(f"{len(program)} tokens, the same ids\n")


if __name__ == "__main__":
    _define_flags()
    app.run(main)
