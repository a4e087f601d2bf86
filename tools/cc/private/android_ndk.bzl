"""Repository rules for android-arm64: the NDK's clang and ExecuTorch's Android libraries.

Neither exists on the machines this repo is developed and tested on, so both
rules degrade to targets that fail at build time with a message saying what to
install and which variable to set, instead of failing while Bazel loads
(which would break every other build, host included).
"""

_NDK_PREBUILT = "toolchains/llvm/prebuilt/linux-x86_64"

_MISSING_TOOL = """#!/bin/sh
echo "android-arm64: {what}" >&2
echo "Fix: install the Android NDK (r26 or newer) and run: export ANDROID_NDK_HOME=/path/to/ndk, then bazel sync --configure or bazel shutdown." >&2
exit 1
"""

_NDK_BUILD = """\
load("@rules_cc//cc:defs.bzl", "cc_toolchain")
load("{config_bzl}", "unix_toolchain_config")

package(default_visibility = ["//visibility:public"])

filegroup(name = "empty")

unix_toolchain_config(
    name = "config",
    builtin_include_directories = ["{prebuilt}/lib/clang", "{prebuilt}/sysroot/usr/include"],
    compile_flags = ["--target=aarch64-linux-android{api}", "--sysroot={prebuilt}/sysroot"],
    compiler = "clang",
    link_flags = ["--target=aarch64-linux-android{api}", "--sysroot={prebuilt}/sysroot", "-static-libstdc++"],
    target_cpu = "arm64-v8a",
    target_libc = "bionic",
    target_triple = "aarch64-linux-android{api}",
    tool_paths = {tools},
)

cc_toolchain(
    name = "cc_toolchain",
    all_files = ":empty",
    ar_files = ":empty",
    as_files = ":empty",
    compiler_files = ":empty",
    dwp_files = ":empty",
    linker_files = ":empty",
    objcopy_files = ":empty",
    strip_files = ":empty",
    toolchain_config = ":config",
)

toolchain(
    name = "toolchain",
    exec_compatible_with = ["@platforms//os:linux", "@platforms//cpu:x86_64"],
    target_compatible_with = ["@platforms//os:android", "@platforms//cpu:aarch64"],
    toolchain = ":cc_toolchain",
    toolchain_type = "@bazel_tools//tools/cpp:toolchain_type",
)
"""

def _loadable(label):
    """`label` as a string a generated BUILD file can load, in any Bazel.

    Bazel 6+ prints labels with their repository ("@@//x:y.bzl"); Bazel 4
    drops the main repository's "@", which inside another repository would
    name that repository instead.
    """
    text = str(label)
    return text if text.startswith("@") else "@" + text

def _android_ndk_toolchain_impl(rctx):
    ndk = rctx.os.environ.get("ANDROID_NDK_HOME", "")
    prebuilt = ndk + "/" + _NDK_PREBUILT
    names = {
        "ar": "llvm-ar",
        "cpp": "clang-cpp",
        "gcc": "clang++",
        "gcov": "llvm-cov",
        "ld": "ld.lld",
        "nm": "llvm-nm",
        "objdump": "llvm-objdump",
        "strip": "llvm-strip",
    }
    tools = {}
    if ndk and rctx.path(prebuilt + "/bin/clang++").exists:
        for tool, binary in names.items():
            tools[tool] = prebuilt + "/bin/" + binary
    else:
        what = "ANDROID_NDK_HOME is not set" if not ndk else "{} has no {}/bin/clang++".format(ndk, _NDK_PREBUILT)
        rctx.file("missing_ndk.sh", _MISSING_TOOL.format(what = what), executable = True)
        for tool in names:
            tools[tool] = str(rctx.path("missing_ndk.sh"))
    rctx.file("BUILD.bazel", _NDK_BUILD.format(config_bzl = _loadable(Label("//tools/cc/private:unix_toolchain_config.bzl")), prebuilt = prebuilt, api = rctx.attr.api_level, tools = repr(tools)))

android_ndk_toolchain = repository_rule(
    implementation = _android_ndk_toolchain_impl,
    doc = "A cc toolchain for android-arm64 from $ANDROID_NDK_HOME (clang, bionic).",
    attrs = {
        "api_level": attr.int(default = 28, doc = "minSdk the binaries target."),
    },
    environ = ["ANDROID_NDK_HOME"],
)

_LIBS_MISSING = """\
load("@rules_cc//cc:defs.bzl", "cc_library")

package(default_visibility = ["//visibility:public"])

# {what}: anything that links ExecuTorch for android-arm64 stops here.
cc_library(
    name = "kernels_and_backends",
    srcs = ["missing.cc"],
)

alias(name = "runtime", actual = ":kernels_and_backends")

filegroup(name = "shared_libraries", srcs = [])
"""

_LIBS_BUILD = """\
load("@rules_cc//cc:defs.bzl", "cc_import", "cc_library")

package(default_visibility = ["//visibility:public"])

{imports}

# The headers are platform-independent; take them from the host wheel of the
# same release.
cc_library(
    name = "runtime",
    deps = ["{headers}"] + {runtime_libs},
)

cc_library(
    name = "kernels_and_backends",
    deps = [":runtime"] + {all_libs},
)

filegroup(
    name = "shared_libraries",
    srcs = glob(["lib/*.so"]),
)
"""

def _executorch_android_libs_impl(rctx):
    root = rctx.os.environ.get("EXECUTORCH_ANDROID_LIBS", "")
    libs = []
    if root and rctx.path(root).exists:
        libs = [p.basename for p in rctx.path(root).readdir() if p.basename.startswith("libexecutorch") and p.basename.endswith(".so")]
    if not libs:
        what = "EXECUTORCH_ANDROID_LIBS is not set" if not root else "{} holds no libexecutorch*.so".format(root)
        rctx.file("missing.cc", "#error \"android-arm64: {}. Fix: build ExecuTorch {} for arm64-v8a (its build_android_library.sh, or unpack jni/arm64-v8a from the executorch-android AAR) and export EXECUTORCH_ANDROID_LIBS=<folder with libexecutorch*.so>\"\n".format(what, rctx.attr.version))
        rctx.file("BUILD.bazel", _LIBS_MISSING.format(what = what))
        return
    rctx.symlink(root, "lib")
    imports = []
    for lib in sorted(libs):
        imports.append("cc_import(\n    name = \"{}\",\n    shared_library = \"lib/{}\",\n)\n".format(lib[:-3], lib))
    runtime_libs = [":" + lib[:-3] for lib in libs if lib in ["libexecutorch.so", "libexecutorch_threadpool.so"]]
    rctx.file("BUILD.bazel", _LIBS_BUILD.format(
        imports = "\n".join(imports),
        headers = rctx.attr.headers,
        runtime_libs = repr(sorted(runtime_libs)),
        all_libs = repr(sorted([":" + lib[:-3] for lib in libs])),
    ))

executorch_android_libs = repository_rule(
    implementation = _executorch_android_libs_impl,
    doc = "ExecuTorch's arm64-v8a shared libraries from $EXECUTORCH_ANDROID_LIBS.",
    attrs = {
        "version": attr.string(mandatory = True, doc = "The release the libraries must be built from (the wheel's)."),
        "headers": attr.string(mandatory = True, doc = "Label of the host wheel's headers target."),
    },
    environ = ["EXECUTORCH_ANDROID_LIBS"],
)
