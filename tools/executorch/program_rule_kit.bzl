"""What a program rule outside this tree shares with llm_pte and qnn_pte.

For rule authors in this repository (encoder_pte in //rag), not for BUILD
files: the action environment, output naming, the providers every program
returns, the misplaced-attribute check, and ExportedElsewhereInfo for the
model targets such a rule exports.
"""

load("//tools/executorch/private:providers.bzl", _ExportedElsewhereInfo = "ExportedElsewhereInfo")
load(
    "//tools/executorch/private:pte_common.bzl",
    _declare_program = "declare_program",
    _label_text = "label_text",
    _misplaced_attrs_error = "misplaced_attrs_error",
    _program_providers = "program_providers",
)
load("//tools/python:action_env.bzl", _NO_NETWORK = "NO_NETWORK", _PYTHON_ACTION_ENV = "PYTHON_ACTION_ENV")

ExportedElsewhereInfo = _ExportedElsewhereInfo
NO_NETWORK = _NO_NETWORK
PYTHON_ACTION_ENV = _PYTHON_ACTION_ENV
declare_program = _declare_program
label_text = _label_text
misplaced_attrs_error = _misplaced_attrs_error
program_providers = _program_providers
