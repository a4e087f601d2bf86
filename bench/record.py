"""A bench's result record: bench/results/<name>.json, what the docs' tables are made from.

A bench run with --record writes one (see bench/report.py). It holds the
tables of the bench's report as printed, cell for cell, so that a doc's table
(tools/docs/results_tables.py) shows exactly what the bench printed, and
the bench's full results beside them. It names its machine and date once;
it is checked in, so it holds no absolute paths and no other dates (a bench's
own `date` stamps are dropped: two dates for one run could disagree).
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import re
import shlex
from collections.abc import Iterable, Sequence

# `|---|:--:|` and friends: the line under a table's header.
_SEPARATOR = re.compile(r"^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$")
# A cell boundary: a pipe that is not escaped (`\|` is a pipe inside a cell).
_BOUNDARY = re.compile(r"(?<!\\)\|")


def _is_table_line(line: str) -> bool:
    return line.strip().startswith("|")


def _cells(line: str) -> list[str]:
    text = line.strip()
    text = text[1:] if text.startswith("|") else text
    text = text[:-1] if text.endswith("|") and not text.endswith("\\|") else text
    return [cell.strip() for cell in _BOUNDARY.split(text)]


def tables_of(markdown: str) -> list[dict]:
    """Every table of `markdown`, in order: caption (the nearest text line above), columns, rows."""
    lines = markdown.splitlines()
    tables = []
    caption = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        if _is_table_line(line) and i + 1 < len(lines) and _SEPARATOR.match(lines[i + 1].strip()):
            rows = []
            j = i + 2
            while j < len(lines) and _is_table_line(lines[j]):
                rows.append(_cells(lines[j]))
                j += 1
            tables.append({"caption": caption, "columns": _cells(line), "rows": rows})
            caption = ""  # a second table right below has no caption of its own
            i = j
            continue
        if line.strip() and not _is_table_line(line):
            caption = line.strip()
        i += 1
    return tables


def machine() -> str:
    """This host: its CPU's model name and logical core count."""
    cpu = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    # Many arm64 kernels print no model name.
    cpu = cpu or platform.processor() or platform.machine()
    return f"{cpu}, {os.cpu_count() or 1} cores"


def command(target: str, args: Sequence[str], drop: Iterable[str] = ()) -> str:
    """The command that reproduces a run: `bazel run <target> -- <args>`.

    Leaves out --record and --out (where the run wrote, not what it measured)
    and the flags in `drop`: those the target's BUILD `args` pass, which
    `bazel run` puts on every command line and a user never types.
    """
    valued = {"out", *drop}
    kept: list[str] = []
    skip_next = False
    for arg in args:
        if skip_next:
            skip_next = False
            continue
        name = arg[2:].split("=", 1)[0] if arg.startswith("--") else ""
        if name in ("record", "norecord") or name in valued:
            skip_next = name in valued and "=" not in arg  # `--out dir`
            continue
        kept.append(arg)
    return f"bazel run {target}" + (" -- " + shlex.join(kept) if kept else "")


def _roots() -> list[str]:
    """Absolute prefixes a checked-in file must not hold, longest first (the
    checkout, the runfiles tree this module runs from)."""
    roots = [
        os.environ.get("BUILD_WORKSPACE_DIRECTORY", ""),
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        os.getcwd(),
    ]
    return sorted({r.rstrip("/") for r in roots if len(r.rstrip("/")) > 1}, key=len, reverse=True)


def _relative(value: object, roots: list[str], home: str) -> object:
    """`value` with every path under a root made relative to it, and the home folder as ~."""
    if isinstance(value, str):
        for root in roots:
            # The root itself is ".", a path under it loses the prefix; /ws-other stays.
            value = re.sub(re.escape(root) + r"(/|(?![\w.-]))", lambda m: "" if m.group(1) else ".", value)
        return re.sub(re.escape(home) + r"(?=/|(?![\w.-]))", "~", value) if len(home) > 1 else value
    if isinstance(value, dict):
        return {_relative(k, roots, home): _relative(v, roots, home) for k, v in value.items() if k != "date"}
    if isinstance(value, list | tuple):
        return [_relative(v, roots, home) for v in value]
    return value


def write_record(path: str, bench: str, command: str, results: dict, markdown: str, machine_name: str = "") -> str:
    """Writes the record to `path` (`machine_name` defaults to this host's); returns `path`."""
    record = {
        "bench": bench,
        "command": command,
        "machine": machine_name or machine(),
        "tables": tables_of(markdown),
        "results": results,
    }
    record = _relative(record, _roots(), os.path.expanduser("~").rstrip("/"))
    record["date"] = datetime.date.today().isoformat()
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(record, f, indent=2, sort_keys=True)
        f.write("\n")
    return path
