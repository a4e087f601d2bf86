"""bazel run //bench:export_profile: where a model's export spends its time.

A profiled build writes each export's stage times beside its program:

    bazel build //models:llama_int4 --//tools/executorch:profile_exports \\
        --output_groups=+export_profile
    bazel run //bench:export_profile -- --record

This reads that side file (bazel-bin/models/<program>.export_profile.json)
and prints one table: the exporter's stages with their wall time, share and
peak RSS, and under each stage the ExecuTorch steps its sampler saw. With
--record it writes bench/results/export-profile-<program>.json, the record
docs/build.md's table comes from. A profiled export always runs uncached, so
the figures are this machine's, measured by that build.

With --before=<profile> (the exporter's --profile_out, from another
revision of the exporter, run on the same machine), the table gets that
profile's seconds beside each row, so a change to the exporter is shown as
one comparison on one machine.
"""

from __future__ import annotations

import json
import os
import sys

from absl import app, flags

from bench.record import command
from bench.report import in_workspace, publish

FLAGS = flags.FLAGS
flags.DEFINE_string("program", "llama_int4", "The //models program whose profile to read.")
flags.DEFINE_string(
    "profile",
    "",
    "The profile file; default bazel-bin/models/<program>.export_profile.json in the workspace.",
)
flags.DEFINE_string("before", "", "A profile of the same export by another revision, measured on this machine.")
flags.DEFINE_string("before_name", "before", "Column header for --before's seconds, e.g. the revision it ran.")
flags.DEFINE_string("out", "", "Output folder; default bench/out/<date>-export-profile-<program> in the workspace.")
flags.DEFINE_bool("record", False, "Also write bench/results/export-profile-<program>.json.")

BUILD = "bazel build //models:{} --//tools/executorch:profile_exports --output_groups=+export_profile"


class ProfileError(Exception):
    pass


def load(path: str, program: str) -> dict:
    """The profile at `path`, checked for the fields the table needs."""
    if not os.path.isfile(path):
        raise ProfileError(f"no profile at {path}; build it first: {BUILD.format(program)}")
    with open(path, encoding="utf-8") as f:
        try:
            profile = json.load(f)
        except json.JSONDecodeError as e:
            raise ProfileError(f"{path} is not JSON ({e}); rebuild it: {BUILD.format(program)}") from e
    if not isinstance(profile, dict) or not {"seconds", "peak_rss_mb", "stages"} <= profile.keys():
        raise ProfileError(f"{path} is not an export profile; rebuild it: {BUILD.format(program)}")
    return profile


def _rows(profile: dict) -> dict[tuple[str, str], float]:
    """{(stage, step): seconds}, step "" for the stage itself, in the profile's order."""
    rows = {}
    for stage in profile["stages"]:
        rows[(stage["stage"], "")] = float(stage["seconds"])
        for step, seconds in stage.get("steps", {}).items():
            rows[(stage["stage"], step)] = float(seconds)
    return rows


def table(profile: dict, program: str, before: dict | None = None, before_name: str = "before") -> str:
    """The profile as one markdown table, steps indented under their stage.

    With `before`, a first column of that profile's seconds; a row that one
    of the two profiles lacks shows "-" there (its sampler saw no time in it).
    """
    total = float(profile["seconds"])
    peak = {stage["stage"]: stage["peak_rss_mb"] for stage in profile["stages"]}
    after_rows = _rows(profile)
    keys = list(after_rows)
    if before is not None:
        before_rows = _rows(before)
        for key in before_rows:
            if key not in after_rows:
                # After its stage's last row, so steps stay under their stage.
                last = max(i for i, k in enumerate(keys) if k[0] == key[0]) if key[0] in peak else len(keys) - 1
                keys.insert(last + 1, key)
    columns = ["stage", *([f"{before_name} s"] if before is not None else []), "s", "share", "peak RSS MB"]
    lines = [
        f"Cold export of {program}: stage wall times, ExecuTorch steps sampled within them.",
        "",
        _line(columns),
        _line(["---"] * len(columns)).replace(" ", ""),
    ]
    for stage, step in keys:
        seconds = after_rows.get((stage, step))
        cells = [f"{seconds:.1f}" if seconds is not None else "-"]
        if step:
            cells = [f"· {step}", *cells, "", ""]
        else:
            share = f"{100 * seconds / total:.1f}%" if total and seconds is not None else ""
            cells = [stage, *cells, share, str(peak.get(stage, ""))]
        if before is not None:
            was = before_rows.get((stage, step))
            cells.insert(1, f"{was:.1f}" if was is not None else "-")
        lines.append(_line(cells))
    totals = ["**total**", f"**{total:.1f}**", "100%", str(profile["peak_rss_mb"])]
    if before is not None:
        totals.insert(1, f"**{float(before['seconds']):.1f}**")
    lines.append(_line(totals))
    return "\n".join(lines) + "\n"


def _line(cells: list[str]) -> str:
    """One markdown row; an empty cell prints as "| |", as in the docs' other tables."""
    return "|" + "|".join(f" {cell} " if cell else " " for cell in cells) + "|"


def main(argv: list[str]) -> None:
    del argv
    path = FLAGS.profile or in_workspace(f"bazel-bin/models/{FLAGS.program}.export_profile.json")
    try:
        profile = load(path, FLAGS.program)
        before = load(FLAGS.before, FLAGS.program) if FLAGS.before else None
    except ProfileError as e:
        raise SystemExit(f"export_profile: {e}") from None
    name = f"export-profile-{FLAGS.program}"
    markdown = f"# {name}\n\nBuilt with: `{BUILD.format(FLAGS.program)}`\n\n" + table(
        profile, FLAGS.program, before, FLAGS.before_name
    )
    results = {"program": FLAGS.program, "profile": profile}
    if before is not None:
        results["before"] = {"name": FLAGS.before_name, "profile": before}
    publish(
        name,
        results,
        markdown,
        FLAGS.out,
        FLAGS.record,
        command("//bench:export_profile", sys.argv[1:], drop=("profile", "before")),
    )


if __name__ == "__main__":
    app.run(main)
