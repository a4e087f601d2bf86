"""Shared by the rules_android and rules_kotlin stand-ins (see ../README.md): a target that explains itself."""

MESSAGE = ("{label}: Android targets need Bazel 7+ with MODULE.bazel (rules_android, rules_kotlin, " +
           "rules_jvm_external), ANDROID_HOME and ANDROID_NDK_HOME; this Bazel has offline stand-ins " +
           "only. See README.md, section The Android app.")

def unavailable(name, **_kwargs):
    """A manual target that fails with MESSAGE when built; all other arguments are ignored."""
    native.genrule(
        name = name,
        outs = [name + ".unavailable"],
        cmd = "echo '{}' >&2; exit 1".format(MESSAGE.format(label = "//" + native.package_name() + ":" + name)),
        tags = ["manual"],
    )
