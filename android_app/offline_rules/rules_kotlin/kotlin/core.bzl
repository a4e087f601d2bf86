"""Offline stand-in for @rules_kotlin//kotlin:core.bzl (see android_app/offline_rules/README.md)."""

load("//:standin.bzl", "unavailable")

kt_compiler_plugin = unavailable
