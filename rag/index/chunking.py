"""Deterministic paragraph chunking of one document under a WordPiece budget.

A chunk is a byte range [start, end) of the document, so its text and its
source offsets can never disagree. The policy:
  * paragraphs are separated by blank lines;
  * whole paragraphs are packed into a chunk while its WordPiece count stays
    within `chunk_tokens - 2` (the embedder adds [CLS] and [SEP]);
  * a paragraph longer than that is cut between words;
  * every chunk after the first starts with the last words of the previous
    chunk, up to `overlap_tokens`, so a fact on a boundary is seen whole.
Token counts are exact, not estimated from words: BERT's pre-tokenizer splits
at whitespace first, so a span's WordPiece count is the sum of its
whitespace-separated words' counts, each counted with the embedder's vocab.
"""

from __future__ import annotations

import dataclasses
import re

from tokenizers import Tokenizer

SPECIAL_TOKENS = 2  # [CLS] ... [SEP]
MAX_CHUNK_TOKENS = 256  # all-MiniLM-L6-v2's sequence limit

_PARAGRAPH_BREAK = re.compile(rb"\n[ \t\r]*\n")
_WORD = re.compile(rb"\S+")


class DocumentError(ValueError):
    """A document that cannot be indexed; the message says why and what to do."""


@dataclasses.dataclass(frozen=True)
class Chunk:
    start: int  # byte offset in the document, inclusive
    end: int  # byte offset, exclusive
    tokens: int  # WordPiece tokens, without [CLS]/[SEP]


@dataclasses.dataclass(frozen=True)
class _Word:
    start: int
    end: int
    tokens: int
    paragraph: int


def wordpiece_counter(tokenizer_json: str) -> Tokenizer:
    """The embedder's own tokenizer (its tokenizer.json), without length limits."""
    tokenizer = Tokenizer.from_file(tokenizer_json)
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def decode_document(data: bytes, name: str) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise DocumentError(
            f"{name} is not UTF-8 (byte {e.start}: {data[e.start : e.start + 1]!r}); "
            "convert it first, e.g. `iconv -f latin1 -t utf-8`"
        ) from None
    if not text.strip():
        raise DocumentError(f"{name} is empty; remove it from `docs` or give it text")
    return text


def _words(data: bytes, tokenizer: Tokenizer) -> list[_Word]:
    spans: list[tuple[int, int, int]] = []
    paragraph_starts = [0] + [m.end() for m in _PARAGRAPH_BREAK.finditer(data)]
    paragraph = 0
    for match in _WORD.finditer(data):
        while paragraph + 1 < len(paragraph_starts) and match.start() >= paragraph_starts[paragraph + 1]:
            paragraph += 1
        spans.append((match.start(), match.end(), paragraph))
    pieces = [data[s:e].decode("utf-8") for s, e, _ in spans]
    encodings = tokenizer.encode_batch(pieces, add_special_tokens=False)
    # A word such as a lone control character normalises to nothing; it still
    # belongs to the chunk's byte range, at no token cost.
    return [_Word(s, e, len(enc.ids), p) for (s, e, p), enc in zip(spans, encodings, strict=True)]


def chunk_document(data: bytes, name: str, tokenizer: Tokenizer, chunk_tokens: int, overlap_tokens: int) -> list[Chunk]:
    """Chunks of `data` (the document's bytes); raises DocumentError on bad input."""
    if not SPECIAL_TOKENS < chunk_tokens <= MAX_CHUNK_TOKENS:
        raise ValueError(f"chunk_tokens must be in ({SPECIAL_TOKENS}, {MAX_CHUNK_TOKENS}], got {chunk_tokens}")
    budget = chunk_tokens - SPECIAL_TOKENS
    if not 0 <= overlap_tokens < budget // 2:
        raise ValueError(
            f"overlap_tokens must be in [0, {budget // 2}) for chunk_tokens={chunk_tokens}, got {overlap_tokens}"
        )
    decode_document(data, name)
    words = _words(data, tokenizer)

    chunks: list[Chunk] = []
    current: list[_Word] = []
    used = 0  # tokens in `current`
    carried = 0  # words at the start of `current` repeated from the previous chunk

    def emit() -> None:
        nonlocal current, used, carried
        chunks.append(Chunk(current[0].start, current[-1].end, used))
        # The overlap never takes the whole chunk, so chunk starts strictly grow.
        tail_start, tail_tokens = len(current), 0
        while tail_start > 1 and tail_tokens + current[tail_start - 1].tokens <= overlap_tokens:
            tail_start -= 1
            tail_tokens += current[tail_start].tokens
        current, used, carried = current[tail_start:], tail_tokens, len(current) - tail_start

    i = 0
    while i < len(words):
        paragraph_end, paragraph_tokens = i, 0
        while paragraph_end < len(words) and words[paragraph_end].paragraph == words[i].paragraph:
            paragraph_tokens += words[paragraph_end].tokens
            paragraph_end += 1
        if used + paragraph_tokens <= budget:
            current.extend(words[i:paragraph_end])
            used += paragraph_tokens
            i = paragraph_end
        elif len(current) > carried:
            emit()  # and retry the paragraph in a fresh chunk
        else:
            # Too long even for a fresh chunk: cut it between words (always
            # taking at least one word, so a single huge word cannot stall).
            while i < paragraph_end and (used + words[i].tokens <= budget or len(current) == carried):
                current.append(words[i])
                used += words[i].tokens
                i += 1
            emit()
    if len(current) > carried:
        chunks.append(Chunk(current[0].start, current[-1].end, used))
    return chunks
