"""bzlmod: the C++ runtime's repositories (see repositories.bzl for WORKSPACE)."""

load("//tools/cc:repositories.bzl", "runtime_repositories")

def _runtime_impl(_module_ctx):
    runtime_repositories()

runtime = module_extension(
    implementation = _runtime_impl,
    doc = "ExecuTorch wheels per platform, ExecuTorch Android libraries and the Android NDK toolchain.",
)
