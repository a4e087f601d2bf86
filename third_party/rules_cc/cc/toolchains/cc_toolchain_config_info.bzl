"""rules_cc's CcToolchainConfigInfo: under Bazel 4.2.3, the built-in one."""

load("//cc/private:builtins.bzl", "BUILTIN_CC_TOOLCHAIN_CONFIG_INFO")

CcToolchainConfigInfo = BUILTIN_CC_TOOLCHAIN_CONFIG_INFO
