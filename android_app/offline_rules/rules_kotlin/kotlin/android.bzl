"""Offline stand-in for @rules_kotlin//kotlin:android.bzl (see android_app/offline_rules/README.md)."""

load("//:standin.bzl", "unavailable")

kt_android_library = unavailable
