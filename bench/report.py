"""Where every bench leaves its figures: results.json (everything measured)
and report.md (the tables printed), in one folder per run, by default
bench/out/<date>-<name> in the workspace (under `bazel run`, the user's
checkout, not the runfiles tree); with --record, also the checked-in record
the docs' tables are generated from (bench/record.py)."""

from __future__ import annotations

import datetime
import json
import os

from bench.record import write_record


def output_folder(name: str, out: str = "") -> str:
    """`out`, or bench/out/<today>-<name> in the workspace; created."""
    if not out:
        out = in_workspace(os.path.join("bench", "out", f"{datetime.date.today().isoformat()}-{name}"))
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


def in_workspace(path: str) -> str:
    """A relative `path` against the workspace, as output_folder places its folders."""
    return os.path.join(os.environ.get("BUILD_WORKSPACE_DIRECTORY", "."), path)


def save_record(name: str, results: dict, markdown: str, command: str, machine: str = "") -> str:
    """Writes the record (bench/record.py) of bench `name` to bench/results/<name>.json in the workspace; returns its path."""
    record = f"bench/results/{name}.json"
    path = write_record(in_workspace(record), name, command, results, markdown, machine)
    print(f"{name}: wrote the record {record}")
    return path


def publish(name: str, results: dict, markdown: str, out: str = "", record: bool = False, command: str = "") -> str:
    """Prints the report and writes both files into output_folder(name, out), and
    with `record` the record bench/results/<name>.json (`command` is what
    reproduces the run); returns the folder."""
    folder = output_folder(name, out)
    write_results(folder, results)
    write_report(folder, markdown)
    print("\n" + markdown)
    print(f"{name}: wrote {folder}/: results.json, report.md")
    if record:
        save_record(name, results, markdown, command)
    return folder
