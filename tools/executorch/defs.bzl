"""Public API for turning language models into ExecuTorch programs.

    load("//tools/executorch:defs.bzl", "calibration_set", "encoder_pte", "executorch_pte", "llm_checkpoint", "sentence_encoder")

Programs come from three rules over shared attributes (private/pte_common.bzl):
llm_pte (a language model on the CPU: portable kernels or XNNPACK), qnn_pte
(a language model compiled for a Qualcomm NPU) and encoder_pte (a sentence
embedder). executorch_pte picks llm_pte or qnn_pte by `backend`
(private/executorch_pte.bzl).
"""

load("//tools/executorch/private:calibration_set.bzl", _calibration_set = "calibration_set")
load("//tools/executorch/private:executorch_pte.bzl", _encoder_pte = "encoder_pte", _executorch_pte = "executorch_pte", _qnn_pte = "qnn_pte")
load("//tools/executorch/private:llm_checkpoint.bzl", _llm_checkpoint = "llm_checkpoint")
load("//tools/executorch/private:llm_pte.bzl", _llm_pte = "llm_pte")
load("//tools/executorch/private:providers.bzl", _CalibrationSetInfo = "CalibrationSetInfo", _LlmCheckpointInfo = "LlmCheckpointInfo", _PteInfo = "PteInfo")
load("//tools/executorch/private:py_proto.bzl", _py_proto = "py_proto")
load("//tools/executorch/private:sentence_encoder.bzl", _EncoderCheckpointInfo = "EncoderCheckpointInfo", _sentence_encoder = "sentence_encoder")

executorch_pte = _executorch_pte
llm_pte = _llm_pte
qnn_pte = _qnn_pte
encoder_pte = _encoder_pte
calibration_set = _calibration_set
CalibrationSetInfo = _CalibrationSetInfo
llm_checkpoint = _llm_checkpoint
sentence_encoder = _sentence_encoder
py_proto = _py_proto
LlmCheckpointInfo = _LlmCheckpointInfo
EncoderCheckpointInfo = _EncoderCheckpointInfo
PteInfo = _PteInfo
