"""The `.pte` sizes that README.md's and docs/rag.md's target tables state are the built programs' sizes.

A table row names its programs in its first cell (`//models:llama_int4`, or
several, with shell-style braces: `{llama3,qwen2_5}_tiny_{fp32,int4}`) and
states a size in a cell of its own: `135 MB`, `90.4 MB`, or a range over the
row's programs, `4-26 MB`. MB is 10^6 bytes, rounded to the decimals written.
A program that `//...` does not build (manual) is measured by its bench's
record instead.
"""

from __future__ import annotations

import json
import os
import re
import unittest

from tools.python.runfile import runfile

DOCS = ("README.md", "docs/rag.md")
# Manual programs: the record that measured each, and the field holding its bytes.
RECORDED = {
    "llama3_2_1b_shape_int4": ("bench/results/peers-llama3_2_1b_shape.json", ("results", "decode_bytes", "file_bytes")),
}
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))? MB$")
_BRACES = re.compile(r"\{([^{}]*)\}")


def expand(name: str) -> list[str]:
    """`a_{x,y}` as [a_x, a_y], every brace group in turn."""
    match = _BRACES.search(name)
    if not match:
        return [name]
    return [
        expanded
        for choice in match.group(1).split(",")
        for expanded in expand(name[: match.start()] + choice + name[match.end() :])
    ]


def rows(text: str) -> list[tuple[int, list[str], str]]:
    """(line, programs, size cell) of each table row that names programs and states a size."""
    found = []
    for index, line in enumerate(text.splitlines()):
        if not line.startswith("| `"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        sizes = [cell for cell in cells[1:] if _SIZE.match(cell)]
        if not sizes:
            continue
        names = [
            program
            for token in re.findall(r"`([^`]+)`", cells[0])
            if "<" not in token
            for program in expand(token.removeprefix("//models:"))
        ]
        found.append((index + 1, names, sizes[0]))
    return found


def _rounds_to(size_mb: float, written: str) -> bool:
    decimals = len(written.partition(".")[2])
    return f"{size_mb:.{decimals}f}" == written


def problems(doc: str, text: str, size_of) -> list[str]:
    """What disagrees in `doc`; `size_of(program)` gives bytes, or None when it cannot."""
    found = []
    for line, names, cell in rows(text):
        where = f"{doc}:{line}: {cell}"
        sizes = {}
        for name in names:
            size = size_of(name)
            if size is None:
                found.append(f"{where}: {name} is not built for this test; add //models:{name} to its data")
            else:
                sizes[name] = size / 1e6
        if len(sizes) != len(names) or not sizes:
            continue
        low, high = _SIZE.match(cell).groups()
        smallest, largest = min(sizes, key=sizes.get), max(sizes, key=sizes.get)
        if high is None and not all(_rounds_to(mb, low) for mb in sizes.values()):
            found.append(f"{where}: the programs are {', '.join(f'{n} {mb:.2f} MB' for n, mb in sizes.items())}")
        if high is not None and not (_rounds_to(sizes[smallest], low) and _rounds_to(sizes[largest], high)):
            found.append(
                f"{where}: the programs range from {smallest} {sizes[smallest]:.2f} MB to {largest} {sizes[largest]:.2f} MB"
            )
    return found


def built_size(name: str) -> int | None:
    if name in RECORDED:
        record, keys = RECORDED[name]
        with open(runfile(record), encoding="utf-8") as f:
            value = json.load(f)
        for key in keys:
            value = value[key]
        return int(value)
    path = runfile(f"models/{name}.pte")
    return os.path.getsize(path) if os.path.isfile(path) else None


class DocSizesTest(unittest.TestCase):
    def test_the_docs_state_the_built_sizes(self) -> None:
        checked = 0
        for doc in DOCS:
            with open(runfile(doc), encoding="utf-8") as f:
                text = f.read()
            checked += len(rows(text))
            self.assertEqual(problems(doc, text, built_size), [], f"fix the sizes in {doc}")
        # Without rows the test would pass on any doc: it must find the tables.
        self.assertGreaterEqual(checked, 8)

    def test_a_wrong_size_or_range_fails(self) -> None:
        sizes = {"a": 134_700_000, "b_x": 4_200_000, "b_y": 26_400_000}.get
        text = (
            "| `//models:a` | 134 MB |\n| `b_{x,y}` | 4-27 MB |\n| `//models:a` | 135 MB |\n| `//models:c` | 1 MB |\n"
        )
        self.assertEqual(
            problems("d.md", text, sizes),
            [
                "d.md:1: 134 MB: the programs are a 134.70 MB",
                "d.md:2: 4-27 MB: the programs range from b_x 4.20 MB to b_y 26.40 MB",
                "d.md:4: 1 MB: c is not built for this test; add //models:c to its data",
            ],
        )

    def test_braces_expand_in_order(self) -> None:
        self.assertEqual(expand("{l,q}_tiny_{fp32,int4}"), ["l_tiny_fp32", "l_tiny_int4", "q_tiny_fp32", "q_tiny_int4"])


if __name__ == "__main__":
    unittest.main()
