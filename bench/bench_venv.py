"""The interpreters of the benches' venvs (@pypi_bench, @pypi_openvino) inside a bench's runfiles."""

from __future__ import annotations

import glob
import os

from tools.python.runfile import workspace_dir


def venv_python(repo: str) -> str | None:
    """Path of @<repo>'s python3, or None when the target does not carry it in `data`."""
    # External repositories sit beside this workspace's folder in the runfiles
    # (`pypi_bench` under WORKSPACE, `<module>~python~pypi_bench` or similar under bzlmod).
    found = glob.glob(os.path.join(os.path.dirname(workspace_dir()), f"*{repo}", "python3"))
    return found[0] if found else None


def bench_python() -> str | None:
    """Path of @pypi_bench's python3, or None when the target does not carry it in `data`."""
    return venv_python("pypi_bench")
