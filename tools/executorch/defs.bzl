"""Public API for turning language models into ExecuTorch programs.

    load("//tools/executorch:defs.bzl", "calibration_set", "executorch_pte", "llm_checkpoint")
"""

load("//tools/executorch/private:calibration_set.bzl", _calibration_set = "calibration_set")
load("//tools/executorch/private:executorch_pte.bzl", _executorch_pte = "executorch_pte")
load("//tools/executorch/private:llm_checkpoint.bzl", _llm_checkpoint = "llm_checkpoint")
load("//tools/executorch/private:providers.bzl", _CalibrationSetInfo = "CalibrationSetInfo", _LlmCheckpointInfo = "LlmCheckpointInfo", _PteInfo = "PteInfo")
load("//tools/executorch/private:py_proto.bzl", _py_proto = "py_proto")

def executorch_pte(name, backend = "portable", **kwargs):
    """Exports an llm_checkpoint to `<name>.pte` + `<name>.manifest.json`.

    Only backend = "qnn" depends on the QNN SDK, so only then is the toolchain
    (and its ~100 MB download) attached.
    """
    if backend == "qnn" and "qnn_sdk" not in kwargs:
        kwargs["qnn_sdk"] = Label("//tools/qnn:sdk")
    _executorch_pte(name = name, backend = backend, **kwargs)

calibration_set = _calibration_set
CalibrationSetInfo = _CalibrationSetInfo
llm_checkpoint = _llm_checkpoint
py_proto = _py_proto
LlmCheckpointInfo = _LlmCheckpointInfo
PteInfo = _PteInfo
