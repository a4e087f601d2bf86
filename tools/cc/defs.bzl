"""Public API of the C++ build helpers."""

load("//tools/cc/private:platform_binary.bzl", _platform_binary = "platform_binary")

platform_binary = _platform_binary
