#!/usr/bin/env bash
# Runs this tree's tests under Bazel 7 (bzlmod, MODULE.bazel), offline, with
# Debian sid's bazel-bootstrap 7.x inside a debootstrap chroot. Heavy: about
# 5 minutes and 2.5 GB for the chroot the first time; it is reused after.
#
#   tools/ci/bazel7_check.sh [bazel test targets...]     (default: //tools/...)
#
# Offline bzlmod works because Debian's /etc/bazel/bazelrc overrides the core
# modules (platforms, rules_cc, rules_python, bazel_skylib ...) with the
# bazel-* packages installed below. The host's CPython 3.11 and its venv
# cache are bind-mounted at the same paths, so the lock resolves to the same
# venv and nothing is downloaded during the Bazel run.
set -euo pipefail
workspace=$(cd "$(dirname "$0")/../.." && pwd)
chroot_dir=${BAZEL7_CHROOT:-/var/tmp/llm-ondevice-sid}
targets=("$@")
((${#targets[@]})) || targets=(//tools/...)
apt_opts=(-o Acquire::Check-Valid-Until=false -y -qq)
modules=(bazel-bootstrap bazel-features bazel-platforms bazel-rules-cc bazel-rules-java bazel-rules-license
  bazel-rules-proto bazel-rules-python bazel-rules-shell bazel-skylib default-jdk-headless python3 ca-certificates
  g++ googletest g++-aarch64-linux-gnu qemu-user-static unzip junit4)

if [ ! -x "$chroot_dir/usr/bin/bazel" ] || [ ! -x "$chroot_dir/usr/bin/aarch64-linux-gnu-g++" ]; then
  command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap
  [ -d "$chroot_dir/usr" ] || debootstrap --variant=minbase sid "$chroot_dir" || true
  # sid moves fast: let apt finish what debootstrap's resolver could not.
  chroot "$chroot_dir" /bin/sh -c "apt-get ${apt_opts[*]} update && DEBIAN_FRONTEND=noninteractive apt-get ${apt_opts[*]} -f install \
    && DEBIAN_FRONTEND=noninteractive apt-get ${apt_opts[*]} install ${modules[*]}"
fi

python_prefix=$(python3.11 -c 'import sys; print(sys.base_prefix)')
venv_cache=${XDG_CACHE_HOME:-$HOME/.cache}/llm_ondevice
mounts=()
bind() {
  mkdir -p "$chroot_dir$2"
  mountpoint -q "$chroot_dir$2" || mount --bind "$1" "$chroot_dir$2"
  mounts+=("$chroot_dir$2")
}
cleanup() { for m in "${mounts[@]}"; do umount "$m" 2>/dev/null || true; done; }
trap cleanup EXIT
mkdir -p "$venv_cache"
bind "$workspace" /src
bind "$python_prefix" "$python_prefix"
bind "$venv_cache" "$venv_cache"
bind /proc /proc
bind /dev /dev

# Bazel 7's own bazel_tools module asks for these four; nothing here uses them.
overrides=""
for m in apple_support buildozer protobuf zlib; do
  overrides+=" --override_module=$m=/src/tools/ci/bzlmod_offline/$m"
done
# The Android rule sets cannot be fetched offline either: the same stand-ins
# WORKSPACE uses (their targets are manual and fail with a pointer to the
# README, so //... skips //android_app:app and its friends). kotlinc for the
# app's host tests comes from the bind-mounted cache, like the venv.
for m in rules_android rules_kotlin rules_jvm_external; do
  overrides+=" --override_module=$m=/src/android_app/offline_rules/$m"
done

chroot "$chroot_dir" /usr/bin/env -i HOME="$HOME" PATH="$python_prefix/bin:/usr/bin:/bin" XDG_CACHE_HOME="${venv_cache%/llm_ondevice}" \
  /bin/bash -c "
  set -e
  cd /src
  bazel --version
  set +e
  bazel --output_user_root=/root/.cache/bazel7 test --lockfile_mode=off --nosandbox_debug $overrides ${targets[*]}
  status=\$?
  bazel --output_user_root=/root/.cache/bazel7 shutdown
  exit \$status
"
