"""Execution logs written the way Bazel 4.2.3 writes them, for the tests of the scripts that read them."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable


def write_exec_log(spawns: Iterable[dict]) -> str:
    """A file of `spawns` as --execution_log_json_file writes them: concatenated JSON objects, not an array."""
    fd, path = tempfile.mkstemp(suffix=".json", dir=os.environ.get("TEST_TMPDIR"))
    with os.fdopen(fd, "w") as f:
        for spawn in spawns:
            f.write(json.dumps(spawn, indent=2))
            f.write("\n")
    return path
