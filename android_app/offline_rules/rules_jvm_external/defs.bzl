"""Offline stand-in for @rules_jvm_external//:defs.bzl (see android_app/offline_rules/README.md)."""

def artifact(coordinates, repository_name = "maven"):
    """The label rules_jvm_external gives a group:artifact (dots, dashes and colons become _)."""
    parts = coordinates.split(":")
    name = "_".join(parts[:2]).replace(".", "_").replace("-", "_")
    return "@{}//:{}".format(repository_name, name)
