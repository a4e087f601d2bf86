"""Public API for turning language models into ExecuTorch programs.

    load("//tools/executorch:defs.bzl", "calibration_set", "executorch_pte", "llm_chat", "llm_checkpoint")

    executorch_pte(name = "my_model_int4", model = ":my_model", recipe = "int4")

RECIPES (private/recipes.bzl) are the named settings `recipe` takes.

Programs come from rules over shared attributes (private/pte_common.bzl):
llm_pte (a language model on the CPU: portable kernels or XNNPACK) and qnn_pte
(a language model compiled for a Qualcomm NPU). executorch_pte picks one by
`backend` (private/executorch_pte.bzl). The sentence embedder of local RAG,
encoder_pte, shares them and lives with the rest of RAG in //rag:defs.bzl.
"""

load("//tools/executorch/private:calibration_set.bzl", _calibration_set = "calibration_set")
load("//tools/executorch/private:executorch_pte.bzl", _executorch_pte = "executorch_pte", _qnn_pte = "qnn_pte")
load("//tools/executorch/private:llm_chat.bzl", _llm_chat = "llm_chat")
load("//tools/executorch/private:llm_checkpoint.bzl", _llm_checkpoint = "llm_checkpoint")
load("//tools/executorch/private:llm_pte.bzl", _llm_pte = "llm_pte")
load("//tools/executorch/private:providers.bzl", _CalibrationSetInfo = "CalibrationSetInfo", _LlmCheckpointInfo = "LlmCheckpointInfo", _PteInfo = "PteInfo")
load("//tools/executorch/private:py_proto.bzl", _py_proto = "py_proto")
load("//tools/executorch/private:recipes.bzl", _RECIPES = "RECIPES")

executorch_pte = _executorch_pte
llm_pte = _llm_pte
qnn_pte = _qnn_pte
calibration_set = _calibration_set
CalibrationSetInfo = _CalibrationSetInfo
llm_checkpoint = _llm_checkpoint
llm_chat = _llm_chat
py_proto = _py_proto
RECIPES = _RECIPES
LlmCheckpointInfo = _LlmCheckpointInfo
PteInfo = _PteInfo
