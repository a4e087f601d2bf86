"""Fills the results tables of README.md and docs/*.md from the benches' records.

A doc asks for a table of a record (bench/results/<name>.json, written by a
bench's --record, see bench/record.py) with a region

    <!-- results: bench/results/peers-smollm2_135m.json table=2 -->
    <!-- /results -->

and this fills it with that table, as the bench printed it, and a line
naming the record, its machine and date:

    bazel run //tools/docs:update_results_tables

`table=` counts the report's tables from 1. `columns="system,decode tok/s"`
picks and orders columns by header, `rows=1-3` or `rows=2,5` picks rows
(from 1), so a doc can show part of a table; quote a value with spaces.
//tools/docs:results_tables_test regenerates every region and fails when a
committed doc differs, so a doc cannot contradict a bench. Markers inside
fenced code blocks are text, not regions. A date belongs to a record, so the
test also refuses a date anywhere else in a doc (`stray_dates`).
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shlex
import sys
from dataclasses import dataclass

from absl import app

UPDATE = "bazel run //tools/docs:update_results_tables"
RESULTS = "bench/results/"
_OPEN = re.compile(r"^<!-- results: (?P<spec>.*?) -->$")
_CLOSE = "<!-- /results -->"


class ResultsTablesError(Exception):
    pass


@dataclass(frozen=True)
class Marker:
    doc: str  # workspace-relative, e.g. docs/benchmarks.md
    line: int  # 1-based, of the opening marker
    text: str  # the opening marker as written
    record: str  # workspace-relative path of the record
    table: int  # 1-based
    columns: tuple[str, ...]  # empty: all
    rows: tuple[int, ...]  # 1-based; empty: all

    def error(self, problem: str, fix: str) -> ResultsTablesError:
        return ResultsTablesError(f"{self.doc}:{self.line}: {self.text}: {problem}; {fix}")


def docs(workspace: str) -> list[str]:
    """The docs that may hold regions: README.md and docs/*.md, workspace-relative."""
    found = ["README.md"] if os.path.isfile(os.path.join(workspace, "README.md")) else []
    folder = os.path.join(workspace, "docs")
    if os.path.isdir(folder):
        found += sorted(f"docs/{name}" for name in os.listdir(folder) if name.endswith(".md"))
    return found


def _rows(spec: str, where: str) -> tuple[int, ...]:
    rows: list[int] = []
    for part in spec.split(","):
        match = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", part)
        if not match or int(match.group(1)) < 1 or (match.group(2) and int(match.group(2)) < int(match.group(1))):
            raise ResultsTablesError(f"{where}: rows={spec} is not like rows=1-3 or rows=2,5 (rows count from 1)")
        first = int(match.group(1))
        rows += range(first, int(match.group(2) or first) + 1)
    return tuple(rows)


def _marker(doc: str, line: int, text: str, spec: str) -> Marker:
    where = f"{doc}:{line}: {text}"
    try:
        words = shlex.split(spec)
    except ValueError as e:
        raise ResultsTablesError(f'{where}: {e}; quote a value with spaces as columns="a b,c"') from e
    if not words or "=" in words[0]:
        raise ResultsTablesError(f"{where}: no record; write <!-- results: {RESULTS}<name>.json table=1 -->")
    record, options = words[0], {}
    for word in words[1:]:
        key, sep, value = word.partition("=")
        if not sep or key not in ("table", "columns", "rows"):
            raise ResultsTablesError(f"{where}: unknown option {word!r}; the options are table=, columns= and rows=")
        options[key] = value
    if not (record.startswith(RESULTS) and record.endswith(".json") and "/" not in record[len(RESULTS) :]):
        raise ResultsTablesError(f"{where}: {record} is not a record; records are {RESULTS}<name>.json")
    if not re.fullmatch(r"[1-9]\d*", options.get("table", "")):
        raise ResultsTablesError(f"{where}: no table=<n>; say which table of the record, counting from 1")
    columns = tuple(c.strip() for c in options["columns"].split(",")) if "columns" in options else ()
    rows = _rows(options["rows"], where) if "rows" in options else ()
    return Marker(doc, line, text, record, int(options["table"]), columns, rows)


def regions(text: str, doc: str) -> list[tuple[Marker, int, int]]:
    """Each region of a doc: its marker and the line indexes of its opening and closing markers."""
    found = []
    opened: tuple[Marker, int] | None = None
    fence = ""
    for index, line in enumerate(text.splitlines()):
        stripped = line.strip()
        if fence:
            fence = "" if stripped.startswith(fence) else fence
            continue
        if stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            continue
        if not stripped.startswith(("<!-- results", "<!-- /results")):
            continue
        where = f"{doc}:{index + 1}: {stripped}"
        if stripped == _CLOSE:
            if opened is None:
                raise ResultsTablesError(f"{where}: closes no region; remove it or open one above it")
            found.append((opened[0], opened[1], index))
            opened = None
            continue
        match = _OPEN.match(stripped)
        if not match:
            raise ResultsTablesError(f"{where}: not a marker; write <!-- results: {RESULTS}<name>.json table=1 -->")
        if opened is not None:
            raise ResultsTablesError(
                f"{doc}:{opened[1] + 1}: {opened[0].text}: not closed before line {index + 1}; add {_CLOSE}"
            )
        opened = (_marker(doc, index + 1, stripped, match.group("spec")), index)
    if opened is not None:
        raise ResultsTablesError(f"{doc}:{opened[1] + 1}: {opened[0].text}: not closed; add {_CLOSE} after it")
    return found


_DATE = re.compile(r"\b(19|20)\d\d-[01]\d-[0-3]\d\b")


def stray_dates(text: str, doc: str) -> list[str]:
    """Each line outside the results regions that holds a date, as `doc:line: text`.

    A doc describes the software as it is; when something was measured is
    the record's to say, once, in the line a region ends with.
    """
    inside: set[int] = set()
    for _, start, end in regions(text, doc):
        inside.update(range(start, end + 1))
    return [
        f"{doc}:{index + 1}: {line.strip()}"
        for index, line in enumerate(text.splitlines())
        if index not in inside and _DATE.search(line)
    ]


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def render(marker: Marker, record: dict) -> list[str]:
    """The lines of a region: the table, a blank line, the line naming the record."""
    tables = record["tables"]
    if not 1 <= marker.table <= len(tables):
        raise marker.error(
            f"{marker.record} has {len(tables)} tables, not a table {marker.table}",
            "choose table=1.." + str(len(tables)),
        )
    table = tables[marker.table - 1]
    header = table["columns"]
    missing = [c for c in marker.columns if c not in header]
    if missing:
        raise marker.error(
            f"table {marker.table} has no column {', '.join(repr(c) for c in missing)}",
            "its columns are " + ", ".join(repr(c) for c in header),
        )
    picked = [header.index(c) for c in marker.columns] if marker.columns else list(range(len(header)))
    too_far = [r for r in marker.rows if r > len(table["rows"])]
    if too_far:
        raise marker.error(
            f"table {marker.table} has {len(table['rows'])} rows, not a row {too_far[0]}",
            f"choose rows within 1-{len(table['rows'])}",
        )
    rows = [table["rows"][r - 1] for r in marker.rows] if marker.rows else table["rows"]
    link = posixpath.relpath(marker.record, posixpath.dirname(marker.doc) or ".")
    return [
        _row([header[i] for i in picked]),
        "|" + "---|" * len(picked),
        *(_row([row[i] if i < len(row) else "" for i in picked]) for row in rows),
        "",
        # The machine says where the figures hold; when is the record's
        # own field, not the doc's.
        f"Record: [{marker.record}]({link}) ({record['machine']}).",
    ]


def regenerate(text: str, doc: str, workspace: str) -> str:
    """`text` with every region filled from its record."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    done = 0
    records: dict[str, dict] = {}
    for marker, start, end in regions(text, doc):
        if marker.record not in records:
            path = os.path.join(workspace, marker.record)
            if not os.path.isfile(path):
                bench = posixpath.basename(marker.record).split("-")[0].removesuffix(".json")
                raise marker.error(
                    f"no record {marker.record}",
                    f"fix the path, or write it: bazel run //bench:{bench} -- --record (docs/benchmarks.md#records)",
                )
            with open(path, encoding="utf-8") as f:
                records[marker.record] = json.load(f)
        out += lines[done : start + 1]
        out += [line + "\n" for line in render(marker, records[marker.record])]
        done = end
    return "".join(out + lines[done:])


def main(argv: list[str]) -> None:
    del argv
    workspace = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if not workspace:
        sys.exit(f"results_tables: run it with {UPDATE}")
    changed = []
    try:
        for doc in docs(workspace):
            with open(os.path.join(workspace, doc), encoding="utf-8") as f:
                text = f.read()
            new = regenerate(text, doc, workspace)
            if new != text:
                changed.append(doc)
                with open(os.path.join(workspace, doc), "w", encoding="utf-8") as f:
                    f.write(new)
    except ResultsTablesError as e:
        sys.exit(f"results_tables: {e}")
    print("results_tables: " + (f"rewrote {', '.join(changed)}" if changed else "every doc is up to date"))


if __name__ == "__main__":
    app.run(main)
