"""The subset of rules_python's public API this repository loads: Bazel 4.2.3's native rules.

Same names and attributes as `@rules_python//python:defs.bzl`, so a BUILD file
reads the same under Bazel 4.2.3 (this stand-in) and Bazel 7+ (the real module).
"""

load("@bazel_tools//tools/python:toolchain.bzl", _py_runtime_pair = "py_runtime_pair")

def py_binary(**kwargs):
    native.py_binary(**kwargs)

def py_library(**kwargs):
    native.py_library(**kwargs)

def py_test(**kwargs):
    native.py_test(**kwargs)

def py_runtime(**kwargs):
    native.py_runtime(**kwargs)

py_runtime_pair = _py_runtime_pair
