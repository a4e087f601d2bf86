"""spawn_runners.py on execution logs written the way Bazel 4.2.3 writes them.

The remote-execution check trusts this script to fail when any spawn ran on
this machine, so each way of failing is exercised here.
"""

from __future__ import annotations

import os
import subprocess
import sys
import unittest

from tools.ci.exec_log_testing import write_exec_log
from tools.python.runfile import runfile


def _log(*spawns: tuple[str, str]) -> str:
    return write_exec_log(
        {"mnemonic": mnemonic, "runner": runner, "remoteCacheHit": runner == "remote cache hit"}
        for mnemonic, runner in spawns
    )


def _check(log: str, *flags: str) -> subprocess.CompletedProcess:
    script = runfile("tools/ci/spawn_runners.py")
    # Beside it, as in the source tree that .ci/run runs it from (a runfiles
    # tree of symlinks does not give Python that folder on every Bazel).
    env = {**os.environ, "PYTHONPATH": os.path.dirname(runfile("tools/ci/cache_hits.py"))}
    return subprocess.run([sys.executable, script, log, *flags], capture_output=True, text=True, env=env)


class SpawnRunnersTest(unittest.TestCase):
    def test_all_remote_passes_and_is_counted(self) -> None:
        log = _log(("ExecuTorchExport", "remote"), ("ExecuTorchExport", "remote"), ("TestRunner", "remote"))
        result = _check(log, "--only", "remote", "--require", "ExecuTorchExport", "--require", "TestRunner")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("ExecuTorchExport", result.stdout)
        self.assertIn("2 remote", result.stdout)

    def test_a_local_spawn_fails_naming_it(self) -> None:
        log = _log(("ExecuTorchExport", "remote"), ("RagIndex", "linux-sandbox"))
        result = _check(log, "--only", "remote")
        self.assertEqual(result.returncode, 1)
        self.assertIn("RagIndex ran {'linux-sandbox': 1}", result.stderr)

    def test_a_cache_hit_is_not_a_remote_run_unless_allowed(self) -> None:
        log = _log(("ExecuTorchExport", "remote cache hit"))
        self.assertEqual(_check(log, "--only", "remote").returncode, 1)
        self.assertEqual(_check(log, "--only", "remote cache hit").returncode, 0)

    def test_a_required_mnemonic_that_never_ran_fails(self) -> None:
        log = _log(("CppCompile", "remote"))
        result = _check(log, "--only", "remote", "--require", "ExecuTorchExport")
        self.assertEqual(result.returncode, 1)
        self.assertIn("no ExecuTorchExport spawn", result.stderr)


if __name__ == "__main__":
    unittest.main()
