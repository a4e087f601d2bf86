#!/usr/bin/env bash
# Creates a hash-locked venv at <root>/<key>, where <key> is what
# --config=remote's worker toolchain and the python_venv repository rule both
# call it. python_venv runs this into ~/.cache/llm_ondevice/venvs; a remote
# worker's image build runs it into /opt/llm_ondevice/venvs, once per lock
# file (see docs/remote.md):
#
#   tools/python/make_venv.sh requirements_lock.txt
#   tools/python/make_venv.sh rag/requirements_lock.txt
#   tools/python/make_venv.sh bench/requirements_lock.txt /opt/llm_ondevice/venvs 'CMAKE_ARGS=-DGGML_NATIVE=ON -DLLAVA_BUILD=OFF -DCMAKE_C_FLAGS=-mno-amx-int8 -DCMAKE_CXX_FLAGS=-mno-amx-int8'
#
# Arguments: <lock file> [root, default /opt/llm_ondevice/venvs] [KEY=VALUE
# build settings for pip, as the venv's build_env in MODULE.bazel]. With
# --print-key first, it only prints <key>. PYTHON names the interpreter
# (default python3.11). It prints the venv's folder, and marks a finished
# install with <folder>/.complete.
set -euo pipefail
print_key=false
if [ "${1:-}" = --print-key ]; then
  print_key=true
  shift
fi
lock=${1:?usage: make_venv.sh [--print-key] <requirements_lock.txt> [root] [KEY=VALUE...]}
root=${2:-/opt/llm_ondevice/venvs}
shift $(($# < 2 ? $# : 2))
python=${PYTHON:-python3.11}

# The key: the lock's sha256, the interpreter's major.minor and, with build
# settings, a hash of "K1=V1 K2=V2" sorted by key (a source build depends on
# its settings too).
sha=$(sha256sum "$lock" | cut -d' ' -f1)
version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
key="${sha:0:16}-py$version"
if (($#)); then
  settings=$(printf '%s\n' "$@" | sort -t= -k1,1 | paste -sd' ')
  key+="-$(printf %s "$settings" | sha256sum | cut -c1-8)"
fi
if $print_key; then
  echo "$key"
  exit 0
fi

venv="$root/$key"
# One install per venv at a time: CI starts the slow bench venv ahead of Bazel
# (.ci/run), and Bazel's repository rule then waits here for it instead of
# deleting it half-built and starting over.
mkdir -p "$root"
exec 9>"$venv.lock"
flock 9
if [ "$(cat "$venv/.complete" 2>/dev/null)" = "$sha" ]; then
  echo "$venv"
  exit 0
fi
rm -rf "$venv"
"$python" -m venv "$venv"
# pip's wheel cache knows a source build by its sdist alone, not by the
# settings it was built with: with settings, a wheel cached from other
# settings (or none) would stand in for this build.
cache=()
if (($#)); then
  cache=(--no-cache-dir)
fi
env "$@" "$venv/bin/python3" -m pip install --quiet --no-deps --require-hashes \
  --disable-pip-version-check --no-input "${cache[@]}" -r "$lock"
echo "$sha" >"$venv/.complete"
echo "$venv"
