"""Public API: the C++ runtime's external repositories (WORKSPACE) and their module extension (bzlmod)."""

load("//tools/cc/private:android_ndk.bzl", _android_ndk_toolchain = "android_ndk_toolchain", _executorch_android_libs = "executorch_android_libs")
load("//tools/cc/private:executorch_wheel.bzl", _executorch_wheel = "executorch_wheel")
load("//tools/cc/private:versions.bzl", "EXECUTORCH_VERSION", "EXECUTORCH_WHEELS")

executorch_wheel = _executorch_wheel
android_ndk_toolchain = _android_ndk_toolchain
executorch_android_libs = _executorch_android_libs

def runtime_repositories():
    """Declares every repository //runtime needs: ExecuTorch per platform, googletest, the NDK."""
    for name, (platform, sha256) in EXECUTORCH_WHEELS.items():
        executorch_wheel(name = name, version = EXECUTORCH_VERSION, platform = platform, sha256 = sha256)
    executorch_android_libs(
        name = "executorch_android_arm64",
        version = EXECUTORCH_VERSION,
        headers = "@executorch_linux_x86_64//:headers",
    )
    android_ndk_toolchain(name = "android_ndk")
