"""platform_binary: builds a binary for another platform inside a host build.

`bazel test //...` on the host can then hold tests that run, say, the
linux-arm64 runner under qemu, without a second `--config` invocation. The
binary is built exactly as `--platforms=<platform>` would build it.
"""

def _platform_transition_impl(_settings, attr):
    return {
        "//command_line_option:platforms": str(attr.platform),
    }

_platform_transition = transition(
    implementation = _platform_transition_impl,
    inputs = [],
    outputs = [
        "//command_line_option:platforms",
    ],
)

def _platform_binary_impl(ctx):
    binary = ctx.attr.binary[0]
    executable = binary[DefaultInfo].files_to_run.executable
    out = ctx.actions.declare_file(ctx.label.name)

    # A symlink keeps $ORIGIN-relative RUNPATHs pointing at the target
    # configuration's shared libraries.
    ctx.actions.symlink(output = out, target_file = executable, is_executable = True)

    # The binary's runfiles minus the binary itself: its runfiles path (e.g.
    # runtime/llm_main) would clash with the host build of the same target.
    others = [f for f in binary[DefaultInfo].default_runfiles.files.to_list() if f != executable]
    runfiles = ctx.runfiles(files = [out] + others)
    return [DefaultInfo(executable = out, files = depset([out]), runfiles = runfiles)]

platform_binary = rule(
    implementation = _platform_binary_impl,
    doc = "The `binary` target built for `platform` (e.g. //platforms:linux_arm64).",
    attrs = {
        "binary": attr.label(
            mandatory = True,
            executable = True,
            cfg = _platform_transition,
            doc = "A cc_binary (or any executable) to build for `platform`.",
        ),
        "platform": attr.label(mandatory = True, doc = "The target platform."),
        # Bazel 4 requires this allowlist on rules with Starlark transitions;
        # Bazel 7 accepts it under this (not the older "whitelist") name.
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
    executable = True,
)
