"""Bazel 4.2.3's built-in C++ symbols, under names that can be re-exported."""

BUILTIN_CC_COMMON = cc_common  # buildifier: disable=native-cc-common
BUILTIN_CC_TOOLCHAIN_CONFIG_INFO = CcToolchainConfigInfo  # buildifier: disable=native-cc-toolchainconfiginfo
