"""Public API of the C++ build helpers."""

load("//tools/cc/private:platform_binary.bzl", _platform_binary = "platform_binary")
load("//tools/cc/private:versions.bzl", _EXECUTORCH_VERSION = "EXECUTORCH_VERSION")

platform_binary = _platform_binary

# string: the ExecuTorch release whose C++ libraries the runtime links.
EXECUTORCH_VERSION = _EXECUTORCH_VERSION
