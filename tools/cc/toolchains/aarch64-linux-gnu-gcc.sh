#!/bin/sh
# Debian's cross gcc links with --as-needed by default (see its -dumpspecs),
# and Bazel places toolchain link flags after the libraries, too late to undo
# it. ExecuTorch's kernel and backend libraries register from static
# initializers and nothing references them, so they must stay NEEDED.
exec /usr/bin/aarch64-linux-gnu-gcc -Wl,--no-as-needed "$@"
