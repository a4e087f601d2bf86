"""How the exporters report bad input: one exception type and one exit path."""

from __future__ import annotations

import logging
import os
import sys
import warnings
from collections.abc import Iterable


class ExportError(Exception):
    """Bad input; the message names the problem and the fix."""


def fail(tool: str, error: ExportError) -> None:
    """Exits with `<tool>: error: <message>`, the form every exporter's tests look for."""
    sys.exit(f"{tool}: error: {error}")


def require_files(paths: Iterable[tuple[str, str]], fix: str) -> None:
    """Raises for the first (what, path) whose file is missing, naming it and `fix`."""
    for what, path in paths:
        if not os.path.exists(path):
            raise ExportError(f"{what} file {path} does not exist: {fix}")


def quiet_libraries() -> None:
    # torch/executorch deprecation chatter would bury real errors in the log.
    logging.getLogger().setLevel(logging.WARNING)
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
