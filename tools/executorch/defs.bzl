"""Public API for turning language models into ExecuTorch programs.

    load("//tools/executorch:defs.bzl", "executorch_pte", "llm_checkpoint")
"""

load("//tools/executorch/private:executorch_pte.bzl", _executorch_pte = "executorch_pte")
load("//tools/executorch/private:llm_checkpoint.bzl", _llm_checkpoint = "llm_checkpoint")
load("//tools/executorch/private:providers.bzl", _LlmCheckpointInfo = "LlmCheckpointInfo", _PteInfo = "PteInfo")
load("//tools/executorch/private:py_proto.bzl", _py_proto = "py_proto")

executorch_pte = _executorch_pte
llm_checkpoint = _llm_checkpoint
py_proto = _py_proto
LlmCheckpointInfo = _LlmCheckpointInfo
PteInfo = _PteInfo
