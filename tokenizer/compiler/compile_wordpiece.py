"""Compiles a Hugging Face BERT (WordPiece) tokenizer.json into the file the C++ runtime reads.

    compile_wordpiece --tokenizer_json=tokenizer.json --out=model.wpt

The runtime (tokenizer/runtime/wordpiece_tokenizer.h) has no JSON parser and
no Unicode library. BertNormalizer (clean text, CJK spacing, NFD + accent
stripping, lower-casing) and BertPreTokenizer (whitespace and punctuation
splits) are resolved here, per code point, by asking `tokenizers` itself
what it does with each of the 1.1M code points; the tables are therefore
exactly the Unicode version and rules of the `tokenizers` build that Hugging
Face users get. Only this pipeline is accepted (BertNormalizer with
lowercase, BertPreTokenizer, WordPiece, [CLS] A [SEP]); anything else is
refused rather than compiled into a tokenizer that would silently disagree.

One approximation, documented: the runtime maps each code point on its own,
so NFD's canonical reordering of a run of combining marks is not done. It only
matters when two marks of different combining class that survive accent
stripping (i.e. are not Mn) meet, which real text does not have.

File format, version 1. All integers are little-endian u32 unless i32
(-1 = none). Nothing is aligned.

  header (20 bytes)
    u8[8]  magic  b"LLMWPTOK"
    u32    version = 1
    u32    payload_size   bytes after the header; the file is exactly 20 + this
    u32    payload_crc32  zlib.crc32 of the payload

  payload: these sections, in this order, each as u8[4] tag, u32 body_size, body

    b"VOCB"  u32 n; u32 end_offset[n]; u8 bytes[end_offset[n-1]]
             Token i is bytes[end_offset[i-1] : end_offset[i]] (UTF-8).
    b"WPCF"  i32 unk_id; i32 cls_id; i32 sep_id; i32 pad_id;
             u32 max_input_chars_per_word; u32 prefix_length; u8 prefix[prefix_length]
    b"ADDT"  u32 k; k x (i32 id, u32 length, u8 content[length])
             Added tokens (normalized = false), matched in the raw text first.
    b"NORM"  u32 r; r x (u32 first, u32 last): removed code points
             u32 s; s x (u32 first, u32 last): code points that become " "
             u32 c; c x (u32 first, u32 last): code points that become " c "
             u32 m; m x (u32 code_point, u32 length, u32 replacement[length]),
             sorted: every other code point that does not map to itself.
             Ranges are inclusive, sorted and disjoint, all lists together.
    b"PRTK"  u32 w; w x (u32 first, u32 last): whitespace (splits, dropped)
             u32 p; p x (u32 first, u32 last): punctuation (a word of its own)
             Classes of the normalized text's code points.
"""

from __future__ import annotations

import json
import struct
import sys
import zlib
from collections.abc import Iterable

from absl import app, flags

FLAGS = flags.FLAGS
flags.DEFINE_string("tokenizer_json", None, "Hugging Face tokenizer.json of a BERT (WordPiece) model.")
flags.DEFINE_string("out", None, "Where to write the compiled tokenizer.")
for _name in ("tokenizer_json", "out"):
    flags.mark_flag_as_required(_name)

MAGIC = b"LLMWPTOK"
VERSION = 1
# A separator that every normalizer step leaves alone and no code point's
# normalization produces.
_SEPARATOR = "q7z"


class CompileError(Exception):
    """The tokenizer.json is not one the runtime implements; says what differs."""


def code_points() -> list[int]:
    return [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]


def check_supported(spec: dict) -> None:
    normalizer = spec.get("normalizer") or {}
    expected_normalizer = {
        "type": "BertNormalizer",
        "clean_text": True,
        "handle_chinese_chars": True,
        "lowercase": True,
    }
    for key, value in expected_normalizer.items():
        if normalizer.get(key) != value:
            raise CompileError(
                f"normalizer.{key} is {normalizer.get(key)!r}, the runtime implements {value!r} "
                "(an uncased BERT tokenizer)"
            )
    if normalizer.get("strip_accents") not in (None, True):
        raise CompileError("normalizer.strip_accents=false is not implemented (an uncased BERT strips accents)")
    if (spec.get("pre_tokenizer") or {}).get("type") != "BertPreTokenizer":
        raise CompileError(f"pre_tokenizer {spec.get('pre_tokenizer')!r} is not BertPreTokenizer")
    if spec["model"].get("type") != "WordPiece":
        raise CompileError(f"model type {spec['model'].get('type')!r} is not WordPiece")
    post = spec.get("post_processor") or {}
    single = [next(iter(item.values()))["id"] for item in post.get("single", [])]
    if post.get("type") not in ("TemplateProcessing", "BertProcessing") or (
        post.get("type") == "TemplateProcessing" and single != ["[CLS]", "A", "[SEP]"]
    ):
        raise CompileError(f"post_processor {post.get('type')} {single} is not [CLS] A [SEP]")
    for token in spec.get("added_tokens", []):
        if token.get("normalized") or token.get("lstrip") or token.get("rstrip") or token.get("single_word"):
            raise CompileError(f"added token {token['content']!r} has options the runtime does not implement")


def normalization(tokenizer) -> dict[int, str]:
    """What BertNormalizer turns each code point into, asked of tokenizers itself."""
    cps = code_points()
    text = _SEPARATOR + _SEPARATOR.join(chr(cp) for cp in cps) + _SEPARATOR
    pieces = tokenizer.normalizer.normalize_str(text).split(_SEPARATOR)
    if len(pieces) != len(cps) + 2:
        raise CompileError("the separator did not survive normalization; cannot derive the tables")
    return dict(zip(cps, pieces[1:-1], strict=True))


def pre_tokenizer_classes(tokenizer) -> tuple[set[int], set[int]]:
    """Whitespace and punctuation code points for BertPreTokenizer: "a" + c + "a" splits in 2, 3 or 1 pieces."""
    cps = code_points()
    text = " ".join("a" + chr(cp) + "a" for cp in cps)
    starts = {start: end for _, (start, end) in tokenizer.pre_tokenizer.pre_tokenize_str(text)}
    whitespace, punctuation = set(), set()
    for k, cp in enumerate(cps):
        at = 4 * k
        if starts.get(at) == at + 3:
            continue
        if starts.get(at + 1) == at + 2:
            punctuation.add(cp)
        elif starts.get(at) == at + 1 and starts.get(at + 2) == at + 3:
            whitespace.add(cp)
        else:
            raise CompileError(f"BertPreTokenizer split 'a' U+{cp:04X} 'a' in a way the runtime cannot express")
    return whitespace, punctuation


def ranges(values: Iterable[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for v in sorted(values):
        if out and out[-1][1] == v - 1:
            out[-1] = (out[-1][0], v)
        else:
            out.append((v, v))
    return out


def pack_ranges(values: Iterable[int]) -> bytes:
    rs = ranges(values)
    return struct.pack("<I", len(rs)) + b"".join(struct.pack("<II", a, b) for a, b in rs)


def section(tag: bytes, body: bytes) -> bytes:
    return tag + struct.pack("<I", len(body)) + body


def compile_tokenizer(spec: dict, tokenizer) -> bytes:
    check_supported(spec)
    model = spec["model"]
    vocab: dict[str, int] = model["vocab"]
    by_id = sorted(vocab.items(), key=lambda item: item[1])
    if [i for _, i in by_id] != list(range(len(by_id))):
        raise CompileError("vocab ids are not dense 0..n-1")

    def token_id(name: str) -> int:
        return vocab.get(name, -1)

    unk = model["unk_token"]
    if unk not in vocab:
        raise CompileError(f"unk_token {unk!r} is not in the vocab")
    for name in ("[CLS]", "[SEP]"):
        if name not in vocab:
            raise CompileError(f"{name} is not in the vocab")

    encoded = [token.encode("utf-8") for token, _ in by_id]
    ends, total = [], 0
    for e in encoded:
        total += len(e)
        ends.append(total)
    vocab_body = struct.pack(f"<I{len(ends)}I", len(ends), *ends) + b"".join(encoded)

    prefix = model["continuing_subword_prefix"].encode("utf-8")
    config_body = struct.pack(
        "<iiiiII",
        token_id(unk),
        token_id("[CLS]"),
        token_id("[SEP]"),
        token_id("[PAD]"),
        model["max_input_chars_per_word"],
        len(prefix),
    )
    config_body += prefix

    added = sorted((t["id"], t["content"].encode("utf-8")) for t in spec.get("added_tokens", []))
    added_body = struct.pack("<I", len(added)) + b"".join(struct.pack("<iI", i, len(c)) + c for i, c in added)

    mapping = normalization(tokenizer)
    removed = {cp for cp, m in mapping.items() if m == ""}
    to_space = {cp for cp, m in mapping.items() if m == " " and cp != 0x20}
    isolated = {cp for cp, m in mapping.items() if m == " " + chr(cp) + " "}
    explicit = sorted(
        (cp, m)
        for cp, m in mapping.items()
        if m != chr(cp) and cp not in removed and cp not in to_space and cp not in isolated
    )
    norm_body = pack_ranges(removed) + pack_ranges(to_space) + pack_ranges(isolated)
    norm_body += struct.pack("<I", len(explicit))
    for cp, m in explicit:
        norm_body += struct.pack(f"<II{len(m)}I", cp, len(m), *(ord(c) for c in m))

    whitespace, punctuation = pre_tokenizer_classes(tokenizer)
    prtk_body = pack_ranges(whitespace) + pack_ranges(punctuation)

    payload = (
        section(b"VOCB", vocab_body)
        + section(b"WPCF", config_body)
        + section(b"ADDT", added_body)
        + section(b"NORM", norm_body)
        + section(b"PRTK", prtk_body)
    )
    return MAGIC + struct.pack("<III", VERSION, len(payload), zlib.crc32(payload)) + payload


def main(argv: list[str]) -> None:
    del argv
    from tokenizers import Tokenizer

    try:
        with open(FLAGS.tokenizer_json, encoding="utf-8") as f:
            spec = json.load(f)
        data = compile_tokenizer(spec, Tokenizer.from_file(FLAGS.tokenizer_json))
    except (CompileError, KeyError, OSError) as e:
        sys.exit(f"compile_wordpiece: {FLAGS.tokenizer_json}: {e}")
    with open(FLAGS.out, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    app.run(main)
