#!/usr/bin/env bash
# Runs this tree's tests under Bazel 7 (bzlmod, MODULE.bazel), offline, with
# Debian sid's bazel-bootstrap 7.x inside a debootstrap chroot. Heavy: about
# 3 minutes and 2.5 GB for the chroot the first time; it is reused after.
#
#   tools/ci/bazel7_check.sh [targets...]        bazel test (default //tools/...)
#   tools/ci/bazel7_check.sh --prepare
#                      only make the chroot and install its packages (.ci/run
#                      does this in the background while the tests run)
#   tools/ci/bazel7_check.sh --analysis-only [targets...]
#                      bazel build --nobuild (default //...), with incompatible
#                      flags the .bazelrc cannot set (Bazel 4.2.3 lacks them)
#   tools/ci/bazel7_check.sh --bcr=DIR
#                      real version resolution: bazel mod graph against DIR, a
#                      checkout of the Bazel Central Registry (bazel_registry.json
#                      and modules/). Offline, Bazel 7's mod command fails after
#                      resolution (it fetches the modules defining extensions);
#                      the versions selected and their graph are printed anyway
#   tools/ci/bazel7_check.sh --e2e [targets...]
#                      bazel test (default //...) in e2e/smoke, which uses this
#                      repository as a module (local_path_override)
#   tools/ci/bazel7_check.sh --overrides [targets...]
#                      the old way: Debian's /etc/bazel/bazelrc and
#                      --override_module for every module (hides fetch failures)
#   tools/ci/bazel7_check.sh --sizes=small,medium [targets...]
#                      builds every target but runs only the tests of these
#                      sizes (.ci/run: the large ones export in pure Python,
#                      which no Bazel version changes, and run under 4.2.3)
#
# Modules are fetched the normal way, from a registry: tools/ci/local_registry
# builds one from Debian's bazel-* packages (and this repository's stand-ins
# for modules Debian lacks), published under the versions the module graph
# names, and serves it on 127.0.0.1 (port: $BAZEL7_REGISTRY_PORT, or any free
# one) until this script exits; see its README. Bazel reads only this
# repository's .bazelrc (--nosystem_rc: Debian's /etc/bazel/bazelrc would
# override the modules) and gets --registry, --lockfile_mode=off and
# --check_direct_dependencies=error on top; `bazel mod graph` then shows that
# no module is overridden. The host's CPython 3.11 and its venv cache are
# bind-mounted at the same paths, so the lock resolves to the same venv and
# nothing else is downloaded during the Bazel run.
set -euo pipefail
workspace=$(cd "$(dirname "$0")/../.." && pwd)
chroot_dir=${BAZEL7_CHROOT:-/var/tmp/llm-ondevice-sid}
mode=test overrides=0 bcr="" targets=() subdir="" sizes=()
for arg in "$@"; do
  case $arg in
    --analysis-only) mode=analysis ;;
    --prepare) mode=prepare ;;
    --e2e) subdir=e2e/smoke ;;
    --overrides) overrides=1 ;;
    --sizes=*) sizes=(--test_size_filters="${arg#--sizes=}") ;;
    --bcr=*) mode=bcr bcr=$(cd "${arg#--bcr=}" && pwd) ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "bazel7_check.sh: unknown option $arg (see --help)" >&2; exit 2 ;;
    *) targets+=("$arg") ;;
  esac
done
if ((${#targets[@]} == 0)); then
  if [ "$mode" = analysis ] || [ -n "$subdir" ]; then targets=(//...); else targets=(//tools/...); fi
fi
apt_opts=(-o Acquire::Check-Valid-Until=false -y -qq)
modules=(bazel-bootstrap bazel-features bazel-platforms bazel-rules-cc bazel-rules-java bazel-rules-license
  bazel-rules-proto bazel-rules-python bazel-rules-shell bazel-skylib default-jdk-headless python3 ca-certificates
  g++ googletest g++-aarch64-linux-gnu qemu-user-static unzip junit4)

[ -d "$chroot_dir/usr" ] || {
  command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap
  debootstrap --variant=minbase sid "$chroot_dir" || true
}

python_prefix=$(python3.11 -c 'import sys; print(sys.base_prefix)')
venv_cache=${XDG_CACHE_HOME:-$HOME/.cache}/llm_ondevice
tmp=$(mktemp -d /tmp/bazel7_check.XXXXXX)
mounts=() server_pid="" bazel_started=0
# Startup options. Without Debian's system rc, its install base must be named.
startup=(--output_user_root=/root/.cache/bazel7)
((overrides)) || startup=(--nosystem_rc --install_base=/usr/share/bazel --trust_install_base "${startup[@]}")

in_chroot() {
  chroot "$chroot_dir" /usr/bin/env -i HOME="$HOME" PATH="$python_prefix/bin:/usr/bin:/bin" \
    XDG_CACHE_HOME="${venv_cache%/llm_ondevice}" /bin/sh -c 'cd "/src/$0" && exec "$@"' "$subdir" "$@"
}
bind() {
  mkdir -p "$chroot_dir$2"
  mountpoint -q "$chroot_dir$2" || mount --bind "$1" "$chroot_dir$2"
  mounts+=("$chroot_dir$2")
}
cleanup() {
  ((bazel_started)) && { in_chroot bazel "${startup[@]}" shutdown || true; }
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    umount "${mounts[i]}" || echo "bazel7_check.sh: could not unmount ${mounts[i]}" >&2
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
# Package scripts need /proc (openjdk's postinst reads it), so mount first.
bind /proc /proc
bind /dev /dev
mkdir -p "$venv_cache"
bind "$workspace" /src
bind "$python_prefix" "$python_prefix"
bind "$venv_cache" "$venv_cache"

if [ ! -x "$chroot_dir/usr/bin/bazel" ] || [ ! -x "$chroot_dir/usr/bin/aarch64-linux-gnu-g++" ]; then
  # sid moves fast: let apt finish what debootstrap's resolver could not.
  chroot "$chroot_dir" /bin/sh -c "apt-get ${apt_opts[*]} update && DEBIAN_FRONTEND=noninteractive apt-get ${apt_opts[*]} -f install \
    && DEBIAN_FRONTEND=noninteractive apt-get ${apt_opts[*]} install ${modules[*]}"
fi

if [ "$mode" = prepare ]; then
  echo "bazel7_check.sh: prepared $chroot_dir ($(in_chroot bazel --version))"
  exit 0
fi

# Starts the registry server (on the host, 127.0.0.1; the chroot shares the
# network) and waits until it writes its port.
start_registry() {
  python3.11 "$workspace/tools/ci/local_registry/registry.py" "$@" --port "${BAZEL7_REGISTRY_PORT:-0}" \
    --port-file "$tmp/port" 2>"$tmp/registry.log" &
  server_pid=$!
  local waited
  for ((waited = 0; waited < 300; waited++)); do
    [ -f "$tmp/port" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$tmp/registry.log" >&2; server_pid=""; exit 1; }
    sleep 0.1
  done
  [ -f "$tmp/port" ] || { echo "bazel7_check.sh: the registry did not start" >&2; exit 1; }
  registry=http://127.0.0.1:$(cat "$tmp/port")/
  echo "Registry: $registry (what it served is summed up at the end)"
}
# What Bazel asked the registry for; archives prove that modules were fetched.
registry_report() {
  local log=$tmp/registry.log
  echo "Registry served $(grep -c '"GET ' "$log" || true) requests ($(grep -c '"GET /archives/' "$log" || true) archives," \
    "$(grep -c '"GET [^"]* HTTP/[0-9.]*" [45]' "$log" || true) not found)."
  grep -o '"GET /archives/[^ ]*' "$log" | sed 's/"GET \/archives\//  fetched /' | sort -u || true
  grep '"GET [^"]* HTTP/[0-9.]*" [45]' "$log" | sed 's/^/  /' || true
}

in_chroot bazel --version
bazel_started=1
status=0
if [ "$mode" = bcr ]; then
  # Real resolution, which reads only MODULE.bazel, metadata.json and (for
  # the selected versions) source.json. Bazel 7's mod command then evaluates
  # every module extension, which fetches the archives of the modules that
  # define them: offline that fails, after resolution. The registry's log
  # still tells which versions resolution selected.
  start_registry serve --dir "$bcr"
  in_chroot bazel "${startup[@]}" mod graph --registry="$registry" --check_direct_dependencies=error \
    --lockfile_mode=off || status=$?
  registry_report
  python3.11 "$workspace/tools/ci/local_registry/registry.py" selected --log "$tmp/registry.log" --workspace "$workspace" \
    --dir "$bcr" ||
    status=1
  exit "$status"
fi

flags=(--lockfile_mode=off)
# As close to Bazel 9 as 7.7.1 allows: no WORKSPACE, no rules loaded behind
# a BUILD file's back, no glob that matches nothing.
((overrides)) || flags+=(--noenable_workspace --incompatible_autoload_externally= --incompatible_disallow_empty_glob)
if ((overrides)); then
  # Bazel 7's own bazel_tools module asks for these four; nothing here uses
  # them. Debian's /etc/bazel/bazelrc overrides the modules it packages.
  for m in apple_support buildozer protobuf zlib; do
    flags+=("--override_module=$m=/src/tools/ci/bzlmod_offline/$m")
  done
  # The Android rule sets: the same stand-ins WORKSPACE uses (their targets
  # are manual and fail with a pointer to the README).
  for m in rules_android rules_kotlin rules_jvm_external; do
    flags+=("--override_module=$m=/src/android_app/offline_rules/$m")
  done
else
  start_registry debian --chroot "$chroot_dir" --workspace "$workspace" --out "$tmp/registry"
  flags+=(--registry="$registry" --check_direct_dependencies=error)
fi

if [ "$mode" = analysis ]; then
  # Stricter than the .bazelrc (Bazel 4.2.3 lacks these flags).
  in_chroot bazel "${startup[@]}" build --nobuild "${flags[@]}" --incompatible_disallow_empty_glob \
    --incompatible_python_disallow_native_rules "${targets[@]}" || status=$?
else
  in_chroot bazel "${startup[@]}" test "${flags[@]}" "${sizes[@]}" "${targets[@]}" || status=$?
fi
((overrides)) && exit "$status"
# No module may come from anywhere but the registry: overridden modules show
# as name@_ in the graph, as Bazel's own two do (and, with --e2e, this
# repository, through local_path_override; the root has no version either). (After the build: Bazel 7's
# mod command evaluates every module extension, which the build mostly did.)
if ! in_chroot bazel "${startup[@]}" mod graph --include_builtin "${flags[@]}" >"$tmp/graph.txt"; then
  echo "bazel7_check.sh: bazel mod graph failed" >&2
  status=1
elif grep -n '@_' "$tmp/graph.txt" | grep -v '<root>' | grep -Ev '(bazel_tools|local_config_platform|llm_ondevice)@_'; then
  echo "bazel7_check.sh: the modules above are overridden, not fetched from the registry" >&2
  status=1
else
  cat "$tmp/graph.txt"
  echo "Module graph: $(grep -o '───[A-Za-z0-9_.-]*@[^ ]*' "$tmp/graph.txt" | grep -v '@_$' | sort -u | wc -l)" \
    "modules from the registry, none overridden."
fi
registry_report
exit "$status"
