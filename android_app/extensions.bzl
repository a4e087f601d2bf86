"""bzlmod: @host_jvm (see host_jvm.bzl; WORKSPACE calls the rule directly)."""

load("//android_app/private:host_jvm.bzl", "host_jvm")

def _host_jvm_extension_impl(_module_ctx):
    host_jvm(name = "host_jvm")

host_jvm_extension = module_extension(
    implementation = _host_jvm_extension_impl,
    doc = "The host JDK, kotlinc and JUnit for //android_app's host checks.",
)
