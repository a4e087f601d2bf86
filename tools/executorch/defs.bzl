"""Public API for turning language models into ExecuTorch programs.

    load("//tools/executorch:defs.bzl", "executorch_pte", "llm_checkpoint", "sentence_encoder")
"""

load("//tools/executorch/private:executorch_pte.bzl", _executorch_pte = "executorch_pte")
load("//tools/executorch/private:llm_checkpoint.bzl", _llm_checkpoint = "llm_checkpoint")
load("//tools/executorch/private:providers.bzl", _LlmCheckpointInfo = "LlmCheckpointInfo", _PteInfo = "PteInfo")
load("//tools/executorch/private:py_proto.bzl", _py_proto = "py_proto")
load("//tools/executorch/private:sentence_encoder.bzl", _EncoderCheckpointInfo = "EncoderCheckpointInfo", _sentence_encoder = "sentence_encoder")

executorch_pte = _executorch_pte
llm_checkpoint = _llm_checkpoint
sentence_encoder = _sentence_encoder
py_proto = _py_proto
LlmCheckpointInfo = _LlmCheckpointInfo
EncoderCheckpointInfo = _EncoderCheckpointInfo
PteInfo = _PteInfo
