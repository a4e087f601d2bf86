"""Public API: repositories that bring a user's own model in.

    load("@llm_ondevice//tools/executorch:repositories.bzl", "hf_model_folder")   # WORKSPACE
    hf_model_folder = use_repo_rule("@llm_ondevice//tools/executorch:repositories.bzl", "hf_model_folder")  # MODULE.bazel
"""

load("//tools/executorch/private:hf_model_folder.bzl", _hf_model_folder = "hf_model_folder")

hf_model_folder = _hf_model_folder
