"""bzlmod: the QNN SDK repository (see repositories.bzl for WORKSPACE)."""

load("//tools/qnn:repositories.bzl", "qnn_repositories")

def _qnn_impl(_module_ctx):
    qnn_repositories()

qnn = module_extension(
    implementation = _qnn_impl,
    doc = "QNN host libraries and their QAIRT version (see tools/qnn/private/qnn_sdk.bzl).",
)
