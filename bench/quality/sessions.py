"""A scoring session for a //models program: the program itself, or a QNN program through its quantized graph."""

from __future__ import annotations

import os

from models.programs import resolve
from tools.executorch.pte_runner import PteSession
from tools.executorch.qnn_recipe import rebuilt_graph
from tools.python.runfile import runfile
from tools.qnn import simulator


def open_program(program: str, calibration: str = "") -> PteSession:
    """A session on models/<program>.pte.

    With `calibration`, the calibration_set a QNN program was exported with
    (models/<calibration>.json), the logits come from the quantized graph the
    program was lowered from (qnn_recipe/rebuilt_graph.py), since the program
    itself runs on a host only in the HTP simulator. Raises ExportError or
    PteError with the fix in the message.
    """
    files = resolve(program)
    if not calibration:
        return PteSession(*files)
    # The quantizer needs only to know where the SDK is (unset, ExecuTorch
    # downloads one); nothing here loads its libraries, so the process need
    # not be re-executed with them on its library path.
    os.environ.setdefault("QNN_SDK_ROOT", simulator.sdk_environment()["QNN_SDK_ROOT"])
    graph = rebuilt_graph.rebuild(files[0], runfile(f"models/{calibration}.json"))
    return PteSession(*files, computed_by=rebuilt_graph.forward_of(graph))
