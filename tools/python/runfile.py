"""Where this workspace's files are for a running py_binary or py_test.

Bazel runs Python from the target's runfiles tree, with this workspace's
files under one folder of it (named after the workspace: `llm_ondevice` under
WORKSPACE, `_main` under bzlmod). This module sits at tools/python/ in that
folder, so the folder is found from its own location, whatever its name.
"""

from __future__ import annotations

import os


def workspace_dir() -> str:
    """This workspace's folder in the runfiles tree (or the checkout, outside Bazel)."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def runfile(path: str) -> str:
    """Absolute path of a workspace-relative file, e.g. runtime/llm_main."""
    return os.path.join(workspace_dir(), path)


def bundled_or_own(path: str) -> str:
    """A bundled runfile as is, else the user's own path: absolute, or relative to the shell `bazel run` ran in."""
    if os.path.isabs(path):
        return path
    bundled = runfile(path)
    if os.path.exists(bundled):
        return bundled
    return os.path.join(os.environ.get("BUILD_WORKING_DIRECTORY", ""), path)
