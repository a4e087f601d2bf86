"""Helpers for tests: find this workspace's files in a test's runfiles."""

from __future__ import annotations

import os

from runfiles import runfiles


def workspace_file(path: str) -> str:
    """Absolute path of `path` (workspace-relative) in the runfiles tree.

    The runfiles root is the workspace name under WORKSPACE and `_main` under
    bzlmod; TEST_WORKSPACE says which.
    """
    location = runfiles.Create().Rlocation(f"{os.environ['TEST_WORKSPACE']}/{path}")
    if not location or not os.path.exists(location):
        raise FileNotFoundError(f"{path} is not in this test's runfiles: add it to `data`")
    return location
