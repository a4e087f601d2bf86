"""Runs llm_main (host, or arm64 under qemu) from tests and benchmarks."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass

# Debian's qemu-user-static and the arm64 glibc that g++-aarch64-linux-gnu
# brings (tools/ci/setup.sh installs both).
QEMU = "/usr/bin/qemu-aarch64-static"
ARM64_SYSROOT = "/usr/aarch64-linux-gnu"


@dataclass
class Run:
    tokens: list[int]
    stats: dict
    stderr: str


def command(binary: str, under_qemu: bool = False) -> list[str]:
    if not under_qemu:
        return [binary]
    if not os.path.exists(QEMU):
        raise FileNotFoundError(f"{QEMU} is missing: apt-get install qemu-user-static (tools/ci/setup.sh)")
    return [QEMU, "-L", ARM64_SYSROOT, binary]


class LlmMainError(RuntimeError):
    """llm_main exited with an error; the message carries its stderr."""


def run_with_stats(
    argv: Sequence[str], timeout: float, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess, dict]:
    """Runs llm_main's argv with --stats_json added (and `env` added to the environment); returns the process and the stats."""
    with tempfile.TemporaryDirectory() as tmp:
        stats_path = os.path.join(tmp, "stats.json")
        argv = [*argv, f"--stats_json={stats_path}"]
        full_env = {**os.environ, **env} if env else None
        result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=full_env)
        if result.returncode != 0:
            raise LlmMainError(f"{' '.join(argv[:4])} ... exited {result.returncode}:\n{result.stderr[-3000:]}")
        with open(stats_path) as f:
            return result, json.load(f)


def generate_ids(
    binary: str,
    pte: str,
    prompt_ids: Sequence[int],
    max_new_tokens: int,
    threads: int = 2,
    under_qemu: bool = False,
    extra_flags: Sequence[str] = (),
    timeout: float = 1200,
) -> Run:
    """Greedy ids from llm_main, ignoring EOS, plus its stats JSON."""
    argv = command(binary, under_qemu) + [
        f"--model={pte}",
        "--prompt_ids=" + ",".join(str(i) for i in prompt_ids),
        f"--max_new_tokens={max_new_tokens}",
        f"--threads={threads}",
        "--ignore_eos",
        "--print_ids",
        *extra_flags,
    ]
    result, stats = run_with_stats(argv, timeout)
    return Run(tokens=printed_ids(result.stdout), stats=stats, stderr=result.stderr)


def printed_ids(stdout: str) -> list[int]:
    """The ids llm_main --print_ids wrote, skipping lines of others: QAIRT's libraries print to stdout too."""
    ids = []
    for line in stdout.splitlines():
        words = line.split()
        if words and all(w.lstrip("-").isdigit() for w in words):
            ids += [int(w) for w in words]
    return ids
