"""A small CcToolchainConfigInfo for GCC/Clang cross compilers on Linux.

Used for linux-arm64 (Debian's g++-aarch64-linux-gnu) and android-arm64 (the
NDK's clang). Tools are system packages or the user's NDK, named by absolute
path, or small wrappers next to the cc_toolchain (relative path).
"""

load("@rules_cc//cc:action_names.bzl", "ACTION_NAMES")
load(
    "@rules_cc//cc:cc_toolchain_config_lib.bzl",
    "feature",
    "flag_group",
    "flag_set",
    "tool_path",
    "with_feature_set",
)
load("@rules_cc//cc/common:cc_common.bzl", "cc_common")
load("@rules_cc//cc/toolchains:cc_toolchain_config_info.bzl", "CcToolchainConfigInfo")

_COMPILE_ACTIONS = [
    ACTION_NAMES.c_compile,
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_module_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.assemble,
    ACTION_NAMES.preprocess_assemble,
]

_CXX_ACTIONS = [
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_module_compile,
    ACTION_NAMES.cpp_header_parsing,
]

_LINK_ACTIONS = [
    ACTION_NAMES.cpp_link_executable,
    ACTION_NAMES.cpp_link_dynamic_library,
    ACTION_NAMES.cpp_link_nodeps_dynamic_library,
]

def _flags_feature(name, actions, flags, enabled = True, when = None):
    return feature(
        name = name,
        enabled = enabled,
        flag_sets = [flag_set(
            actions = actions,
            flag_groups = [flag_group(flags = flags)],
            with_features = [with_feature_set(features = [when])] if when else [],
        )] if flags else [],
    )

def _unix_toolchain_config_impl(ctx):
    tools = dict(ctx.attr.tool_paths)
    features = [
        feature(name = "supports_pic", enabled = True),
        feature(name = "supports_dynamic_linker", enabled = True),
        feature(name = "opt"),
        feature(name = "dbg"),
        _flags_feature("default_compile_flags", _COMPILE_ACTIONS, [
            "-fPIC",
            "-Wall",
            # Outputs must not depend on where the checkout lives.
            "-no-canonical-prefixes",
        ] + (["-fno-canonical-system-headers"] if ctx.attr.compiler == "gcc" else []) + [
            "-Wno-builtin-macro-redefined",
            "-D__DATE__=\"redacted\"",
            "-D__TIMESTAMP__=\"redacted\"",
            "-D__TIME__=\"redacted\"",
        ] + ctx.attr.compile_flags),
        _flags_feature("default_cxx_flags", _CXX_ACTIONS, ["-std=c++17"]),
        _flags_feature("opt_flags", _COMPILE_ACTIONS, ["-O2", "-DNDEBUG", "-ffunction-sections", "-fdata-sections"], when = "opt"),
        _flags_feature("dbg_flags", _COMPILE_ACTIONS, ["-g", "-O0"], when = "dbg"),
        _flags_feature("default_link_flags", _LINK_ACTIONS, [
            # Kernel and backend libraries register from static initializers:
            # keep them NEEDED although nothing references them.
            "-Wl,--no-as-needed",
            "-Wl,-z,relro,-z,now",
            "-pthread",
            "-lstdc++",
            "-lm",
        ] + ctx.attr.link_flags),
        _flags_feature("opt_link_flags", _LINK_ACTIONS, ["-Wl,--gc-sections"], when = "opt"),
    ]

    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        features = features,
        cxx_builtin_include_directories = ctx.attr.builtin_include_directories,
        toolchain_identifier = ctx.attr.target_triple,
        host_system_name = "x86_64-unknown-linux-gnu",
        target_system_name = ctx.attr.target_triple,
        target_cpu = ctx.attr.target_cpu,
        target_libc = ctx.attr.target_libc,
        compiler = ctx.attr.compiler,
        abi_version = "local",
        abi_libc_version = "local",
        tool_paths = [tool_path(name = name, path = path) for name, path in tools.items()],
    )

unix_toolchain_config = rule(
    implementation = _unix_toolchain_config_impl,
    doc = "Toolchain config for a GCC or Clang cross compiler named by absolute paths.",
    attrs = {
        "target_triple": attr.string(mandatory = True, doc = "e.g. aarch64-linux-gnu."),
        "target_cpu": attr.string(mandatory = True, doc = "Bazel cpu value, e.g. aarch64."),
        "target_libc": attr.string(default = "glibc", doc = "glibc or bionic."),
        "compiler": attr.string(default = "gcc", values = ["gcc", "clang"]),
        "tool_paths": attr.string_dict(
            mandatory = True,
            doc = "Tool name (gcc, ld, ar, cpp, nm, objdump, strip, gcov) to an absolute path, or a path relative to the cc_toolchain's package.",
        ),
        "builtin_include_directories": attr.string_list(doc = "System include folders the compiler searches on its own."),
        "compile_flags": attr.string_list(doc = "Extra flags for every compile, e.g. --target or --sysroot."),
        "link_flags": attr.string_list(doc = "Extra flags for every link."),
    },
    provides = [CcToolchainConfigInfo],
)
