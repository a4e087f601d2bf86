"""cache_hits.py on execution logs written the way Bazel 4.2.3 writes them.

.ci/run's last check trusts this script to fail when a required action ran
instead of coming from the remote cache, and to say which one did.
"""

from __future__ import annotations

import subprocess
import sys
import unittest

from tools.ci.exec_log_testing import write_exec_log
from tools.python.runfile import runfile


def _spawn(mnemonic: str, hit: bool, output: str = "", inputs: tuple[tuple[str, str], ...] = ()) -> dict:
    spawn = {"mnemonic": mnemonic, "remoteCacheHit": hit}
    if output:
        spawn["progressMessage"] = f"Making {output}"
        spawn["listedOutputs"] = [{"path": output}]
    if inputs:
        spawn["inputs"] = [{"path": path, "digest": {"hash": digest, "sizeBytes": "1"}} for path, digest in inputs]
    return spawn


def _check(log: str, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, runfile("tools/ci/cache_hits.py"), log, *flags], capture_output=True, text=True
    )


class CacheHitsTest(unittest.TestCase):
    def test_all_hits_pass_and_are_counted(self) -> None:
        log = write_exec_log(
            [_spawn("ExecuTorchExport", True), _spawn("ExecuTorchExport", True), _spawn("CppCompile", False)]
        )
        result = _check(log, "--require", "ExecuTorchExport")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("remote cache hits    2   executed    0", result.stdout)

    def test_a_required_action_that_ran_fails_naming_it_and_its_inputs(self) -> None:
        ran = _spawn("ExecuTorchExport", False, "models/tiny_int4.pte", (("models/tiny/checkpoint.pth", "ab" * 32),))
        log = write_exec_log([_spawn("ExecuTorchExport", True), ran])
        result = _check(log, "--require", "ExecuTorchExport")
        self.assertEqual(result.returncode, 1)
        self.assertIn("ExecuTorchExport: 1 hits, 1 executed", result.stderr)
        self.assertIn("'Making models/tiny_int4.pte'", result.stderr)
        self.assertIn("abababababababab models/tiny/checkpoint.pth", result.stderr)

    def test_an_action_that_ran_but_is_not_required_passes(self) -> None:
        log = write_exec_log([_spawn("ExecuTorchExport", True), _spawn("CppCompile", False, "runtime/a.o")])
        result = _check(log, "--require", "ExecuTorchExport")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertNotIn("runtime/a.o", result.stderr)

    def test_a_required_mnemonic_with_no_spawn_fails(self) -> None:
        log = write_exec_log([_spawn("CppCompile", True)])
        self.assertEqual(_check(log, "--require", "ExecuTorchExport").returncode, 1)


if __name__ == "__main__":
    unittest.main()
