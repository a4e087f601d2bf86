#!/usr/bin/env python3
"""Extracts plain-text corpora from Debian packages, using only the standard library.

Runs once, inside the `text_corpora` repository rule, on files unpacked from
pinned .deb packages:

* Jane Austen's six novels from r-cran-janeaustenr. R stores them in a
  lazy-load database (`Rdata.rdx` index + `Rdata.rdb` blobs) of character
  vectors, one line of the Project Gutenberg text per element. A small reader
  of R's XDR serialization format is enough for that, so R is not needed.
* The King James Bible from bible-kjv-text, printed verse by verse by the
  package's own `bible` program (passed in), with chapters as paragraphs.

Outputs are UTF-8, "\n" line ends, paragraphs separated by one blank line.
"""

from __future__ import annotations

import argparse
import gzip
import pathlib
import re
import struct
import subprocess
import zlib
from typing import Any

# R's SEXP type codes used by character-vector databases.
_SYMSXP, _LISTSXP, _CHARSXP, _LGLSXP, _INTSXP, _REALSXP = 1, 2, 9, 10, 13, 14
_STRSXP, _VECSXP, _REFSXP, _NILVALUE_SXP = 16, 19, 255, 254
_UTF8_MASK = 1 << 15

AUSTEN_BOOKS = {
    "emma": "emma",
    "mansfieldpark": "mansfield_park",
    "northangerabbey": "northanger_abbey",
    "persuasion": "persuasion",
    "prideprejudice": "pride_and_prejudice",
    "sensesensibility": "sense_and_sensibility",
}


class _RReader:
    """Reads one object in R's binary XDR serialization format (version 2 or 3)."""

    def __init__(self, data: bytes):
        if data[:2] != b"X\n":
            raise ValueError("not an R XDR serialization stream")
        self._data = data
        self._pos = 2
        self._refs: list[Any] = []
        version = self._int()
        self._int()  # R version that wrote it
        self._int()  # oldest R version that reads it
        if version == 3:
            name_length = self._int()  # native encoding name follows
            self._pos += name_length

    def _int(self) -> int:
        (value,) = struct.unpack_from(">i", self._data, self._pos)
        self._pos += 4
        return value

    def read(self) -> Any:
        flags = self._int()
        kind = flags & 0xFF
        has_attributes = flags & (1 << 9)
        has_tag = flags & (1 << 10)
        if kind == _NILVALUE_SXP:
            return None
        if kind == _REFSXP:
            return self._refs[(flags >> 8) - 1]
        if kind == _SYMSXP:
            symbol = ("symbol", self.read())
            self._refs.append(symbol)
            return symbol
        if kind == _CHARSXP:
            length = self._int()
            if length == -1:
                return None
            raw = self._data[self._pos : self._pos + length]
            self._pos += length
            return raw.decode("utf-8" if flags & _UTF8_MASK else "latin-1")
        if kind == _LISTSXP:
            attributes = self.read() if has_attributes else None
            tag = self.read() if has_tag else None
            head, tail = self.read(), self.read()
            return ("pairlist", tag, head, tail, attributes)
        if kind in (_LGLSXP, _INTSXP):
            count = self._int()
            value: Any = list(struct.unpack_from(f">{count}i", self._data, self._pos))
            self._pos += 4 * count
        elif kind == _REALSXP:
            count = self._int()
            value = list(struct.unpack_from(f">{count}d", self._data, self._pos))
            self._pos += 8 * count
        elif kind in (_STRSXP, _VECSXP):
            value = [self.read() for _ in range(self._int())]
        else:
            raise ValueError(f"R type {kind} is not supported by this reader")
        if has_attributes:
            return ("attributed", value, self.read())
        return value


def _names(attributes: Any) -> list[str]:
    while attributes:
        _, tag, head, tail, _ = attributes
        if tag == ("symbol", "names"):
            return head
        attributes = tail
    raise ValueError("R object has no names attribute")


def read_lazyload_db(stem: pathlib.Path) -> dict[str, list[str]]:
    """Returns every character vector in an R lazy-load database `<stem>.rdx/.rdb`."""
    index = _RReader(gzip.decompress(stem.with_suffix(".rdx").read_bytes())).read()
    _, fields, _ = index
    _, offsets, offset_attributes = fields[0]  # "variables": name -> c(offset, length)
    blobs = stem.with_suffix(".rdb").read_bytes()
    vectors = {}
    for name, (offset, length) in zip(_names(offset_attributes), offsets, strict=True):
        # Each blob: 4-byte big-endian inflated size, then a zlib stream.
        value = _RReader(zlib.decompress(blobs[offset + 4 : offset + length])).read()
        if isinstance(value, tuple):  # attributes (e.g. a class) do not matter here
            value = value[1]
        vectors[name] = ["" if line is None else line for line in value]
    return vectors


def _paragraphs(lines: list[str]) -> str:
    """Joins wrapped lines into paragraphs, one per line-block, blank-line separated."""
    text = "\n".join(line.rstrip() for line in lines)
    blocks = [block.strip("\n") for block in re.split(r"\n\s*\n", text)]
    return "\n\n".join(block for block in blocks if block.strip()) + "\n"


def kjv_text(bible: pathlib.Path, data_dir: pathlib.Path) -> str:
    verses = subprocess.run(
        [str(bible), "-f", "-p", str(data_dir), "Gen1:1-Rev22:21"],
        check=True,
        capture_output=True,
        text=True,
        env={"LANG": "C.UTF-8"},
    ).stdout.splitlines()
    chapters: list[list[str]] = []
    current = None
    for verse in verses:
        match = re.match(r"^(\w+?)(\d+):(\d+) (.*)$", verse)
        if not match:
            continue  # the program's separators between books
        chapter = (match.group(1), match.group(2))
        if chapter != current:
            chapters.append([])
            current = chapter
        chapters[-1].append(match.group(4).strip())
    if len(chapters) != 1189:  # chapters in the Protestant canon
        raise SystemExit(f"bible printed {len(chapters)} chapters, expected 1189")
    return "\n\n".join(" ".join(chapter) for chapter in chapters) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--austen_db", type=pathlib.Path, required=True, help="janeaustenr's data/Rdata (no suffix)")
    parser.add_argument("--bible", type=pathlib.Path, required=True, help="the bible-kjv `bible` program")
    parser.add_argument("--bible_data", type=pathlib.Path, required=True, help="folder with bible.data")
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args()

    args.out.mkdir(parents=True, exist_ok=True)
    books = read_lazyload_db(args.austen_db)
    for r_name, file_name in AUSTEN_BOOKS.items():
        (args.out / f"{file_name}.txt").write_text(_paragraphs(books[r_name]), encoding="utf-8")
    (args.out / "kjv.txt").write_text(kjv_text(args.bible, args.bible_data), encoding="utf-8")


if __name__ == "__main__":
    main()
