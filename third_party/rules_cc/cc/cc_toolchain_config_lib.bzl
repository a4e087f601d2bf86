"""rules_cc's toolchain-config helpers, as Bazel 4.2.3's own copy defines them."""

load(
    "@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl",
    _feature = "feature",
    _flag_group = "flag_group",
    _flag_set = "flag_set",
    _tool_path = "tool_path",
    _with_feature_set = "with_feature_set",
)

feature = _feature
flag_group = _flag_group
flag_set = _flag_set
tool_path = _tool_path
with_feature_set = _with_feature_set
