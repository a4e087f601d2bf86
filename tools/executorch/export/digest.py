"""The sha256 every manifest and calibration set records."""

from __future__ import annotations

import hashlib


def sha256_of(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()
