"""Offline stand-in for rules_jvm_external's `maven` extension: an empty @maven."""

def _empty_impl(rctx):
    rctx.file("BUILD.bazel", "# Offline stand-in: no Maven artifacts; see android_app/offline_rules/README.md.\n")

_empty = repository_rule(implementation = _empty_impl)

def _maven_impl(module_ctx):
    names = {}
    for mod in module_ctx.modules:
        for install in mod.tags.install:
            names[install.name] = True
    for name in names:
        _empty(name = name)

_install = tag_class(attrs = {
    "name": attr.string(default = "maven"),
    "artifacts": attr.string_list(),
    "repositories": attr.string_list(),
    "lock_file": attr.label(),
    "fail_if_repin_required": attr.bool(),
    "fetch_sources": attr.bool(),
    "resolver": attr.string(),
    "use_starlark_android_rules": attr.bool(),
    "aar_import_bzl_label": attr.string(),
    "version_conflict_policy": attr.string(),
    "strict_visibility": attr.bool(),
    "boms": attr.string_list(),
})

maven = module_extension(implementation = _maven_impl, tag_classes = {"install": _install})
