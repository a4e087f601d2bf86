"""WORKSPACE API: the app's host-check repository (see private/host_jvm.bzl; bzlmod: extensions.bzl)."""

load("//android_app/private:host_jvm.bzl", _host_jvm = "host_jvm")

host_jvm = _host_jvm
