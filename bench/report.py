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


def publish(name: str, results: dict, markdown: str, out: str = "") -> str:
    """Prints the report and writes both files into output_folder(name, out); returns the folder."""
    folder = output_folder(name, out)
    write_results(folder, results)
    write_report(folder, markdown)
    print("\n" + markdown)
    print(f"{name}: wrote {folder}/: results.json, report.md")
    return folder
