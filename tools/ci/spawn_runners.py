"""Reads a Bazel execution log and says where each kind of action ran.

    python3 tools/ci/spawn_runners.py exec.json --only remote \
        --require ExecuTorchExport --require TestRunner

Prints one line per mnemonic with its count per runner ("remote", "remote
cache hit", "linux-sandbox", ...). Exits non-zero when a spawn ran on a
runner other than those given with --only, or when a --require mnemonic has
no spawn at all (a check that saw nothing proves nothing).
"""

from __future__ import annotations

import argparse
import collections
import sys

from cache_hits import spawns


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("log")
    parser.add_argument("--only", action="append", default=[], help="the runners allowed (all if none)")
    parser.add_argument("--require", action="append", default=[], help="a mnemonic that must have spawns")
    args = parser.parse_args()
    runners: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for spawn in spawns(args.log):
        runners[spawn.get("mnemonic", "?")][spawn.get("runner", "?")] += 1
    failed = False
    for mnemonic in sorted(runners):
        counts = ", ".join(f"{n} {runner}" for runner, n in sorted(runners[mnemonic].items()))
        print(f"  {mnemonic:26} {counts}")
        elsewhere = {r: n for r, n in runners[mnemonic].items() if args.only and r not in args.only}
        if elsewhere:
            print(f"spawn check: {mnemonic} ran {elsewhere}, expected only {args.only}", file=sys.stderr)
            failed = True
    for mnemonic in args.require:
        if not runners.get(mnemonic):
            print(f"spawn check: no {mnemonic} spawn in {args.log}", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
