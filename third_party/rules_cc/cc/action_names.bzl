"""rules_cc's action names, as Bazel 4.2.3's own copy defines them."""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", _ACTION_NAMES = "ACTION_NAMES")

ACTION_NAMES = _ACTION_NAMES
