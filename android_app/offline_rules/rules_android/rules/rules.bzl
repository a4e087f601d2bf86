"""Offline stand-in for @rules_android//rules:rules.bzl (see android_app/offline_rules/README.md)."""

load("//:standin.bzl", "unavailable")

android_binary = unavailable
android_library = unavailable
aar_import = unavailable
