#!/usr/bin/env bash
# Runs this tree's tests under Bazel 7 (bzlmod, MODULE.bazel) offline, using
# Debian sid's bazel-bootstrap 7.x inside a debootstrap chroot. Heavy: about
# 4 minutes and 2.3 GB for the chroot the first time; it is reused after.
#
#   sudo tools/ci/bazel7_check.sh [CHROOT_DIR] [bazel test args...]
#
# The chroot gets the workspace bind-mounted at /src and the host's venv cache
# at the same path, so no package is downloaded during the Bazel run.
set -euo pipefail
workspace=$(cd "$(dirname "$0")/../.." && pwd)
chroot_dir=${1:-/var/tmp/llm-ondevice-sid}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(//...)

if [ ! -x "$chroot_dir/usr/bin/bazel" ]; then
  command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap
  debootstrap --variant=minbase --include=bazel-bootstrap,python3,python3-venv,ca-certificates sid "$chroot_dir"
fi

mkdir -p "$chroot_dir/src" "$chroot_dir/root/.cache"
mountpoint -q "$chroot_dir/src" || mount --bind "$workspace" "$chroot_dir/src"
mountpoint -q "$chroot_dir/proc" || mount -t proc proc "$chroot_dir/proc"
mountpoint -q "$chroot_dir/dev" || mount --bind /dev "$chroot_dir/dev"
trap 'umount "$chroot_dir/src" "$chroot_dir/proc" "$chroot_dir/dev" 2>/dev/null || true' EXIT

chroot "$chroot_dir" /bin/bash -c "
  set -e
  cd /src
  bazel --version
  bazel --output_user_root=/root/.cache/bazel7 test --enable_bzlmod --lockfile_mode=off ${targets[*]}
  bazel --output_user_root=/root/.cache/bazel7 shutdown
"
