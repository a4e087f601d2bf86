"""tools/bazel: runs .bazelversion's Bazel, or the newest installed one, and says which."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
import unittest

from tools.python.runfile import runfile


def _write_executable(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


class BazelLauncherTest(unittest.TestCase):
    def setUp(self) -> None:
        self.root = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.root)
        # A workspace with the real launcher and .bazelversion, and a bin
        # folder laid out like Debian's: a wrapper's siblings bazel-<version>.
        self.workspace = os.path.join(self.root, "ws")
        os.makedirs(os.path.join(self.workspace, "tools"))
        shutil.copy(runfile("tools/bazel"), os.path.join(self.workspace, "tools", "bazel"))
        shutil.copy(runfile(".bazelversion"), os.path.join(self.workspace, ".bazelversion"))
        with open(runfile(".bazelversion"), encoding="utf-8") as f:
            self.wanted = f.readline().strip()
        self.bin = os.path.join(self.root, "bin")
        os.makedirs(self.bin)

    def _fake_bazel(self, name: str) -> str:
        path = os.path.join(self.bin, name)
        _write_executable(path, f'#!/bin/sh\necho "{name}"; for a in "$@"; do echo "arg:$a"; done\n')
        return path

    def _run(self, bazel_real: str, *args: str) -> subprocess.CompletedProcess[str]:
        env = {"PATH": "/usr/bin:/bin", "BAZEL_REAL": bazel_real}
        return subprocess.run(
            [os.path.join(self.workspace, "tools", "bazel"), *args],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )

    def test_bazelversion_names_a_release_that_is_not_4(self) -> None:
        # Users get Bazel 8 or 9 through Bazelisk; 4.2.3 is this machine's fallback.
        self.assertRegex(self.wanted, r"^(8|9)\.\d+\.\d+$")

    def test_runs_the_binary_bazelisk_or_the_wrapper_found(self) -> None:
        real = self._fake_bazel(f"bazel-{self.wanted}")
        self._fake_bazel("bazel-4")
        result = self._run(real, "build", "--config=ci", "//a b:c")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(
            result.stdout.splitlines(), [f"bazel-{self.wanted}", "arg:build", "arg:--config=ci", "arg://a b:c"]
        )
        self.assertEqual(result.stderr, "")

    def test_falls_back_to_the_newest_installed_and_says_so(self) -> None:
        self._fake_bazel("bazel-4")
        self._fake_bazel("bazel-7.7.1")
        self._fake_bazel("bazel-10.0.0-notexecutable")
        os.chmod(os.path.join(self.bin, "bazel-10.0.0-notexecutable"), 0o644)
        missing = os.path.join(self.bin, f"bazel-{self.wanted}")
        result = self._run(missing, "test", "//...")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.splitlines(), ["bazel-7.7.1", "arg:test", "arg://..."])
        self.assertIn(f"Bazel {self.wanted} (.bazelversion) is not installed; running bazel-7.7.1", result.stderr)

    def test_sorts_versions_numerically(self) -> None:
        self._fake_bazel("bazel-4")
        self._fake_bazel("bazel-10.1.0")
        self._fake_bazel("bazel-9.2.0-rc1")
        result = self._run(os.path.join(self.bin, "bazel-missing"), "info")
        self.assertEqual(result.stdout.splitlines()[0], "bazel-10.1.0")

    def test_no_bazel_at_all_is_a_clear_error(self) -> None:
        result = self._run(os.path.join(self.bin, f"bazel-{self.wanted}"), "build")
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stdout, "")
        self.assertIn(f"Install Bazel {self.wanted} through Bazelisk", result.stderr)


if __name__ == "__main__":
    unittest.main()
