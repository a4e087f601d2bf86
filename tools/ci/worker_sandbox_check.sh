#!/usr/bin/env bash
# Runs Python export actions the way a remote worker would (--config=remote):
# in Bazel's Linux sandbox with this machine's venv cache hidden, and the
# locked venv only at the worker's path, /opt/llm_ondevice/venvs/<key>. The
# e2e/smoke export needs nothing else from ~/.cache, so a worker image that
# carries the venvs (docs/remote.md) can run it.
#   tools/ci/worker_sandbox_check.sh [extra bazel flags...]
set -euo pipefail
workspace=$(cd "$(dirname "$0")/../.." && pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/llm_ondevice
key=$("$workspace/tools/python/make_venv.sh" --print-key "$workspace/requirements_lock.txt")
worker=/opt/llm_ondevice/venvs/$key
[ -x "$cache/venvs/$key/bin/python3" ] || { echo "worker_sandbox_check: no venv $cache/venvs/$key yet; build anything first" >&2; exit 1; }

# The venv appears at the worker's path through a bind mount for the length
# of the check (the sandbox hides its source, so it cannot mount it itself).
[ "$(id -u)" = 0 ] || { echo "worker_sandbox_check: needs root (mount --bind)" >&2; exit 1; }
made=""
if [ ! -e "$worker" ]; then
  mkdir -p "$worker"
  made=$worker
fi
mount --bind "$cache/venvs/$key" "$worker"
cleanup() {
  umount "$worker" 2>/dev/null || true
  [ -z "$made" ] || rmdir "$made" 2>/dev/null || true
}
trap cleanup EXIT

cd "$workspace/e2e/smoke"
# Never from a cache: these actions must really run here.
bazel build "$@" \
  --noremote_accept_cached \
  --extra_toolchains=@pypi//:worker_python_toolchain \
  --spawn_strategy=linux-sandbox \
  --sandbox_tmpfs_path="$cache" \
  //:tiny_fp32
on_worker=$(sha256sum bazel-bin/tiny_fp32.pte | cut -d" " -f1)
# A worker must produce the bytes this machine's toolchain does.
bazel build "$@" //:tiny_fp32
here=$(sha256sum bazel-bin/tiny_fp32.pte | cut -d" " -f1)
if [ "$on_worker" != "$here" ]; then
  echo "worker_sandbox_check: tiny_fp32.pte differs: $on_worker from the worker path, $here from ~/.cache" >&2
  exit 1
fi
echo "worker_sandbox_check: ok (venv at $worker only, $cache hidden; same .pte, sha256 $here)"
