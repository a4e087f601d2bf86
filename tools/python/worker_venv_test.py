"""A worker's venvs (make_venv.sh) have the names python_venv and its worker toolchain use."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from tools.python.runfile import runfile

# (wrapper of a python_venv repository, its lock file, its build_env) as in
# MODULE.bazel and WORKSPACE.
_VENVS = [
    (sys.argv[1], "requirements_lock.txt", []),
    (sys.argv[2], "rag/requirements_lock.txt", []),
    (
        sys.argv[3],
        "bench/requirements_lock.txt",
        ["CMAKE_ARGS=-DGGML_NATIVE=ON -DLLAVA_BUILD=OFF -DCMAKE_C_FLAGS=-mno-amx-int8 -DCMAKE_CXX_FLAGS=-mno-amx-int8"],
    ),
]


def _in_runfiles(execroot_path: str) -> str:
    # $(location) of an external file is external/<repo>/...; the runfiles
    # tree has it there (legacy layout) or beside this workspace's folder.
    for candidate in (execroot_path, os.path.join("..", execroot_path.removeprefix("external/"))):
        if os.path.exists(candidate):
            return candidate
    raise FileNotFoundError(execroot_path)


def _repository_and_key(wrapper: str) -> tuple[str, str]:
    """A python_venv repository's folder, and the key of the venv it links."""
    repo_dir = os.path.dirname(os.path.realpath(_in_runfiles(wrapper)))
    return repo_dir, os.path.basename(os.readlink(os.path.join(repo_dir, "venv")).rstrip("/"))


class WorkerVenvTest(unittest.TestCase):
    def test_keys_match_the_repository_rules_venvs(self) -> None:
        for wrapper, lock, settings in _VENVS:
            with self.subTest(lock=lock):
                _, key = _repository_and_key(wrapper)
                printed = subprocess.run(
                    [runfile("tools/python/make_venv.sh"), "--print-key", runfile(lock), "/unused", *settings],
                    capture_output=True,
                    text=True,
                    check=True,
                    # The venv's own interpreter has the venv's Python version.
                    env={**os.environ, "PYTHON": sys.executable},
                ).stdout.strip()
                self.assertEqual(printed, key)

    def test_worker_toolchain_names_that_folder(self) -> None:
        repo_dir, key = _repository_and_key(_VENVS[0][0])
        with open(os.path.join(repo_dir, "BUILD.bazel"), encoding="utf-8") as f:
            build = f.read()
        self.assertIn(f'interpreter_path = "/opt/llm_ondevice/venvs/{key}/bin/python3"', build)

    def test_action_wrapper_runs_the_venv_beside_it(self) -> None:
        repo_dir, _ = _repository_and_key(_VENVS[0][0])
        prefix = subprocess.run(
            [os.path.join(repo_dir, "action_python3"), "-c", "import sys; print(sys.prefix)"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        self.assertEqual(os.path.realpath(prefix), os.path.realpath(os.path.join(repo_dir, "venv")))

    def test_action_wrapper_elsewhere_names_both_places(self) -> None:
        # As staged on a remote worker: the file alone, with no venv link.
        repo_dir, key = _repository_and_key(_VENVS[0][0])
        worker_python = f"/opt/llm_ondevice/venvs/{key}/bin/python3"
        with tempfile.TemporaryDirectory() as tmp:
            alone = shutil.copy(os.path.join(repo_dir, "action_python3"), tmp)
            result = subprocess.run([alone, "-c", "import sys; print(sys.executable)"], capture_output=True, text=True)
        if os.path.exists(worker_python):  # a machine that is also a worker image
            self.assertEqual(result.stdout.strip(), worker_python)
            return
        self.assertEqual(result.returncode, 127)
        self.assertIn("no venv beside", result.stderr)
        self.assertIn(worker_python, result.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
