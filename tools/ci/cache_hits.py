"""Reads a Bazel execution log and reports remote cache hits per mnemonic.

    python3 tools/ci/cache_hits.py exec.json --require ExecuTorchExport

Exits non-zero when any spawn of a required mnemonic ran instead of being
served from the remote cache, or when there was none at all.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys


def spawns(path: str):
    """Bazel 4.2.3 writes concatenated JSON objects, not a JSON array."""
    decoder = json.JSONDecoder()
    text = open(path).read()
    pos = 0
    while pos < len(text):
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        obj, pos = decoder.raw_decode(text, pos)
        yield obj


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("log")
    parser.add_argument("--require", action="append", default=[], help="mnemonic that must be all hits")
    args = parser.parse_args()
    hits: collections.Counter = collections.Counter()
    runs: collections.Counter = collections.Counter()
    ran: list[dict] = []  # the required spawns that ran, to name them below
    for spawn in spawns(args.log):
        mnemonic, hit = spawn.get("mnemonic", "?"), spawn.get("remoteCacheHit")
        (hits if hit else runs)[mnemonic] += 1
        if mnemonic in args.require and not hit:
            ran.append(spawn)
    for mnemonic in sorted(set(hits) | set(runs)):
        print(f"  {mnemonic:24} remote cache hits {hits[mnemonic]:4}   executed {runs[mnemonic]:4}")
    failed = False
    for mnemonic in args.require:
        if runs[mnemonic] or not hits[mnemonic]:
            print(
                f"cache check: {mnemonic}: {hits[mnemonic]} hits, {runs[mnemonic]} executed; expected all hits",
                file=sys.stderr,
            )
            failed = True
    for spawn in ran:
        # Which action missed, and what it read: its inputs' digests, set
        # beside those of the build that should have uploaded it, show
        # which input differs.
        outputs = [o.get("path", "?") for o in spawn.get("listedOutputs", [])]
        print(f"cache check: ran {spawn.get('progressMessage', '?')!r}, outputs {outputs}", file=sys.stderr)
        for item in spawn.get("inputs", []):
            digest = item.get("digest", {})
            print(f"    input {digest.get('hash', '?')[:16]} {item.get('path', '?')}", file=sys.stderr)
    print(f"cache check: {sum(hits.values())} remote cache hits, {sum(runs.values())} spawns executed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
