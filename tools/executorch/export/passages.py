"""Passages of a calibration_set, as the exporters that calibrate read them."""

from __future__ import annotations

import json

from tools.executorch.export.digest import sha256_of
from tools.executorch.export.errors import ExportError


def load_passages(calibration: str, tokenizer_json: str, count: int) -> tuple[dict, list[list[int]]]:
    """The calibration_set record and `count` of its passages, at an even stride through the set."""
    with open(calibration) as f:
        record = json.load(f)
    if record["tokenizer_sha256"] != sha256_of(tokenizer_json):
        raise ExportError(
            f"{calibration} was tokenized with another tokenizer than this model's: give executorch_pte a "
            "calibration_set whose model is this program's model"
        )
    passages = record["passages"]
    if not 1 <= count <= len(passages):
        raise ExportError(
            f"the calibration set holds {len(passages)} passages but calibration_passages={count}: raise the "
            "calibration_set's passages or lower calibration_passages"
        )
    # An even stride, like the set itself, so a short run still spans the text.
    stride = len(passages) / count
    return record, [passages[int(i * stride)] for i in range(count)]
