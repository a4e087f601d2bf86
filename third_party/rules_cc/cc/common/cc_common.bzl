"""rules_cc's cc_common: under Bazel 4.2.3, the built-in one."""

load("//cc/private:builtins.bzl", "BUILTIN_CC_COMMON")

cc_common = BUILTIN_CC_COMMON
