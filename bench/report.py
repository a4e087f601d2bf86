"""Where every bench leaves its figures: results.json (everything measured)
and report.md (the tables printed), in one folder per run, by default
bench/out/<date>-<name> in the workspace (under `bazel run`, the user's
checkout, not the runfiles tree)."""

from __future__ import annotations

import datetime
import json
import os


def output_folder(name: str, out: str = "") -> str:
    """`out`, or bench/out/<today>-<name> in the workspace; created."""
    if not out:
        workspace = os.environ.get("BUILD_WORKSPACE_DIRECTORY", ".")
        out = os.path.join(workspace, "bench", "out", f"{datetime.date.today().isoformat()}-{name}")
    os.makedirs(out, exist_ok=True)
    return out


def write_results(folder: str, results: dict) -> str:
    path = os.path.join(folder, "results.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=2)
    return path


def write_report(folder: str, markdown: str) -> str:
    path = os.path.join(folder, "report.md")
    with open(path, "w", encoding="utf-8") as f:
        f.write(markdown)
    return path
