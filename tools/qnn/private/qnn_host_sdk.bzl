"""qnn_host_sdk: the QNN_SDK_ROOT folder that Qualcomm lowering actions see.

ExecuTorch's QNN code reads `$QNN_SDK_ROOT/lib/x86_64-linux-clang/libQnnHtp.so`
and dlopen()s libQnnHtp.so and libQnnSystem.so through LD_LIBRARY_PATH. This
rule lays that folder out of symlinks to @qnn_sdk, and for QAIRT >= 2.47 puts
our ABI adapter (htp_abi_adapter.c) in as libQnnHtp.so, with the real library
beside it as libQnnHtp.real.so.
"""

QnnSdkInfo = provider(
    doc = "A QNN SDK laid out for lowering actions.",
    fields = {
        "root": "string: exec-root-relative path to use as QNN_SDK_ROOT.",
        "library_dir": "string: exec-root-relative path to put on LD_LIBRARY_PATH.",
        "files": "depset of File: everything under root; inputs of every lowering action.",
        "qairt_build_id": "string: the QAIRT build id read from libQnnHtp.so, e.g. 'v2.51.0.260929181845'.",
        "uses_abi_adapter": "bool: whether libQnnHtp.so is the adapter in front of the real library.",
    },
)

def _qnn_host_sdk_impl(ctx):
    lib_dir = ctx.label.name + "/lib/x86_64-linux-clang/"
    outputs = []
    for library in ctx.files.host_libraries:
        link = ctx.actions.declare_file(lib_dir + library.basename)
        ctx.actions.symlink(output = link, target_file = library)
        outputs.append(link)
    htp = ctx.file.htp_library
    if ctx.attr.use_abi_adapter:
        adapter = ctx.actions.declare_file(lib_dir + "libQnnHtp.so")
        ctx.actions.symlink(output = adapter, target_file = ctx.file.abi_adapter)
        real = ctx.actions.declare_file(lib_dir + "libQnnHtp.real.so")
        ctx.actions.symlink(output = real, target_file = htp)
        outputs.extend([adapter, real])
    else:
        link = ctx.actions.declare_file(lib_dir + "libQnnHtp.so")
        ctx.actions.symlink(output = link, target_file = htp)
        outputs.append(link)
    root = outputs[0].dirname[:-len("/lib/x86_64-linux-clang")]
    files = depset(outputs)
    return [
        DefaultInfo(files = files, runfiles = ctx.runfiles(files = outputs)),
        QnnSdkInfo(
            root = root,
            library_dir = outputs[0].dirname,
            files = files,
            qairt_build_id = ctx.attr.qairt_build_id,
            uses_abi_adapter = ctx.attr.use_abi_adapter,
        ),
    ]

qnn_host_sdk = rule(
    implementation = _qnn_host_sdk_impl,
    doc = "Lays out QNN_SDK_ROOT for lowering actions (see the file's docstring).",
    attrs = {
        "htp_library": attr.label(mandatory = True, allow_single_file = True, doc = "The real libQnnHtp.so."),
        "host_libraries": attr.label(mandatory = True, allow_files = True, doc = "Every other host library it needs."),
        "abi_adapter": attr.label(allow_single_file = True, cfg = "exec", doc = "The adapter's shared library."),
        "use_abi_adapter": attr.bool(mandatory = True, doc = "True for QAIRT >= 2.47 (see htp_abi_adapter.c)."),
        "qairt_build_id": attr.string(mandatory = True, doc = "From @qnn_sdk//:qairt.bzl."),
    },
)
