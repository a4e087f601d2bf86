"""Prints where a Bazel command's wall time went, from its JSON trace profile.

    python3 tools/ci/slowest_actions.py test.profile.gz [--top 15]

The profile is Bazel's `--profile=<file>.gz`. Actions run side by side
(--jobs), so their times add up to more than the wall time; the table says
which actions a cold CI waits for, and how much of the machine the exports
take.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json


def action_events(path: str) -> list[dict]:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    return [e for e in events if e.get("ph") == "X" and "dur" in e and e.get("cat") in ("action processing", "test")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    events = action_events(args.profile)
    if not events:
        raise SystemExit(f"{args.profile}: no action events; was it written by bazel --profile?")
    start = min(e["ts"] for e in events)
    end = max(e["ts"] + e["dur"] for e in events)
    by_kind: collections.Counter = collections.Counter()
    for e in events:
        by_kind[e["name"].split(" ")[0]] += e["dur"]
    busy = sum(by_kind.values())
    print(f"ci: {len(events)} actions in {(end - start) / 60e6:.1f} min wall, {busy / 60e6:.1f} min of action time")
    for kind, dur in by_kind.most_common(6):
        print(f"ci:   {kind:<12} {dur / 60e6:6.1f} min ({100 * dur / busy:.0f}%)")
    print(f"ci: the {args.top} longest:")
    for e in sorted(events, key=lambda e: -e["dur"])[: args.top]:
        print(f"ci:   {e['dur'] / 60e6:6.1f} min  {e['name']}")


if __name__ == "__main__":
    main()
