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


def table(profile: dict, program: str) -> str:
    """The profile as one markdown table, steps indented under their stage."""
    total = float(profile["seconds"])
    lines = [
        f"Cold export of {program}: stage wall times, ExecuTorch steps sampled within them.",
        "",
        "| stage | s | share | peak RSS MB |",
        "|---|---|---|---|",
    ]
    for stage in profile["stages"]:
        share = f"{100 * stage['seconds'] / total:.1f}%" if total else ""
        lines.append(f"| {stage['stage']} | {stage['seconds']:.1f} | {share} | {stage['peak_rss_mb']} |")
        for step, seconds in stage.get("steps", {}).items():
            lines.append(f"| · {step} | {seconds:.1f} | | |")
    lines.append(f"| **total** | **{total:.1f}** | 100% | {profile['peak_rss_mb']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    del argv
    path = FLAGS.profile or in_workspace(f"bazel-bin/models/{FLAGS.program}.export_profile.json")
    try:
        profile = load(path, FLAGS.program)
    except ProfileError as e:
        raise SystemExit(f"export_profile: {e}") from None
    name = f"export-profile-{FLAGS.program}"
    markdown = f"# {name}\n\nBuilt with: `{BUILD.format(FLAGS.program)}`\n\n" + table(profile, FLAGS.program)
    publish(
        name,
        {"program": FLAGS.program, "profile": profile},
        markdown,
        FLAGS.out,
        FLAGS.record,
        command("//bench:export_profile", sys.argv[1:], drop=("profile",)),
    )


if __name__ == "__main__":
    app.run(main)
