"""Offline stand-in for rules_android's SDK repository extension: an @androidsdk with no SDK."""

_BUILD = """\
# Offline stand-in for the Android SDK: no tools; see android_app/offline_rules/README.md.
toolchain_type(name = "no_sdk_type")

filegroup(name = "no_sdk")

toolchain(
    name = "sdk-toolchain",
    toolchain = ":no_sdk",
    toolchain_type = ":no_sdk_type",
)
"""

def _empty_sdk_impl(rctx):
    rctx.file("BUILD.bazel", _BUILD)

_empty_sdk = repository_rule(implementation = _empty_sdk_impl)

def _extension_impl(_module_ctx):
    _empty_sdk(name = "androidsdk")

android_sdk_repository_extension = module_extension(implementation = _extension_impl)
