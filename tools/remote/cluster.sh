#!/usr/bin/env bash
# A real remote-execution cluster on this machine, on loopback only:
# BuildGrid (the REAPI server) with its PostgreSQL database, and N buildbox
# workers, each a buildbox-casd plus a buildbox-worker. Bazel talks to it with
# --config=remote_loopback (.bazelrc); docs/remote.md has the rest.
#
#   tools/remote/cluster.sh prepare               makes the image and installs the
#                                                 server, starting nothing (start
#                                                 does it too, the first time)
#   tools/remote/cluster.sh start [--workers=N]   (default 2)
#   tools/remote/cluster.sh stop                  stops everything it started
#   tools/remote/cluster.sh status
#   tools/remote/cluster.sh kill-worker I         SIGKILLs worker I (0-based)
#                                                 with its running action
#   tools/remote/cluster.sh worker-of PID         which worker runs process PID
#
# Where things come from, all from Debian and PyPI:
#   - the server runs on this machine: Debian 12's postgresql-15, and
#     BuildGrid 0.9.1 from tools/remote/requirements_lock.txt in a CPython 3.13
#     venv (REMOTE_PYTHON313, or python3.13 on PATH or under pyenv);
#   - the workers run in a Debian sid chroot, the worker image, since buildbox
#     is packaged only for sid. The image holds what docs/remote.md says a
#     worker needs and nothing of this machine's ~/.cache: each locked venv
#     is bind-mounted read-only at /opt/llm_ondevice/venvs/<key>, with the
#     CPython 3.11 it was made from at its own path.
# Each daemon runs in a session of its own, recorded by PID; stop ends the
# sessions, unmounts the image's mounts and deletes the state, so a start is
# always an empty cache. Needs root (chroot, mount).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
state=${REMOTE_CLUSTER_STATE:-/var/tmp/llm-ondevice-cluster}
image=${REMOTE_WORKER_IMAGE:-/var/tmp/llm-ondevice-worker}
port=${REMOTE_CLUSTER_PORT:-50051}
db_port=${REMOTE_CLUSTER_DB_PORT:-50052}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/llm_ondevice
# How long a silent worker counts as alive; its job is then queued again.
keepalive=${REMOTE_CLUSTER_KEEPALIVE:-15}

log() { echo "cluster: $*" >&2; }
die() {
  log "$*"
  exit 1
}

# --- The worker image --------------------------------------------------------
# gcc 12 and gold: what Bazel 4.2.3 configured for this machine's C++ toolchain.
image_packages=(buildbox gcc-12 g++-12 binutils-gold python3)
make_image() {
  [ -e "$image/.complete" ] && return
  command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
  log "making the worker image in $image (Debian sid, about 2 minutes, once)"
  [ -d "$image/usr" ] || debootstrap --variant=minbase sid "$image" >"$state/logs/debootstrap.log" 2>&1 ||
    die "debootstrap failed; see $state/logs/debootstrap.log"
  # The machine's clock is past sid's Release files' Valid-Until, and no
  # service may start inside the image.
  echo 'Acquire::Check-Valid-Until "false";' >"$image/etc/apt/apt.conf.d/99llm-ondevice"
  printf '#!/bin/sh\nexit 101\n' >"$image/usr/sbin/policy-rc.d"
  chmod +x "$image/usr/sbin/policy-rc.d"
  mount_system
  chroot "$image" /bin/sh -c "apt-get -qq update && DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends ${image_packages[*]}" >"$state/logs/apt.log" 2>&1 ||
    die "installing ${image_packages[*]} into the image failed; see $state/logs/apt.log"
  # Bazel's host C++ toolchain names /usr/bin/gcc and the gcc 12 include
  # folders (Debian 12's compiler); sid's own default gcc is newer.
  for tool in gcc g++ cpp gcov; do ln -sf "$tool-12" "$image/usr/bin/$tool"; done
  touch "$image/.complete"
}

mounts_file=$state/mounts
bind() {  # <source> <path in the image> [ro]
  mkdir -p "$image$2"
  mountpoint -q "$image$2" && return
  mount --bind "$1" "$image$2"
  [ "${3:-}" = ro ] && mount -o remount,bind,ro "$image$2"
  echo "$image$2" >>"$mounts_file"
}
mount_system() {
  mkdir -p "$state"
  bind /proc /proc
  bind /sys /sys
  bind /dev /dev
  bind /dev/pts /dev/pts
}
# The venvs, exactly as tools/python/make_venv.sh names them on an image.
mount_venvs() {
  local venv prefix
  for venv in "$cache"/venvs/*/; do
    venv=${venv%/}
    [ -e "$venv/.complete" ] || continue
    bind "$venv" "/opt/llm_ondevice/venvs/$(basename "$venv")" ro
    prefix=$("$venv/bin/python3" -c 'import sys; print(sys.base_prefix)')
    bind "$prefix" "$prefix" ro
  done
  mkdir -p "$image/opt/llm_ondevice"
  install -m 0755 "$here/output_paths_runner.py" "$image/opt/llm_ondevice/output_paths_runner.py"
}

# --- Processes ----------------------------------------------------------------
# Starts "$@" in a session of its own, logs to $state/logs/<name>.log, and
# records the PID (= the session ID) in $state/pids/<name>.
daemon() {
  local name=$1
  shift
  setsid "$@" </dev/null >"$state/logs/$name.log" 2>&1 &
  echo $! >"$state/pids/$name"
}
alive() { [ -f "$state/pids/$1" ] && kill -0 "$(cat "$state/pids/$1")" 2>/dev/null; }
# Ends the daemon's whole session (setsid made its PID the session ID), so
# that an action which a runner moved to a process group of its own ends too;
# waits for it, then kills what is left.
end() {  # <name> [signal]
  local pid waited
  [ -f "$state/pids/$1" ] || return 0
  pid=$(cat "$state/pids/$1")
  pkill "-${2:-TERM}" -s "$pid" 2>/dev/null || true
  for ((waited = 0; waited < 100; waited++)); do
    pgrep -s "$pid" >/dev/null || break
    sleep 0.1
  done
  pkill -KILL -s "$pid" 2>/dev/null || true
  rm -f "$state/pids/$1"
}
wait_for() {  # <what> <seconds> <command...>
  local what=$1 seconds=$2 waited
  shift 2
  for ((waited = 0; waited < seconds * 10; waited++)); do
    "$@" 2>/dev/null && return 0
    sleep 0.1
  done
  die "$what did not come up in ${seconds}s; logs in $state/logs"
}
listening() { python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$1"; }

# --- The server ---------------------------------------------------------------
python313() {
  local candidate
  for candidate in "${REMOTE_PYTHON313:-}" "$(command -v python3.13 || true)" "$HOME"/.pyenv/versions/3.13*/bin/python3.13; do
    [ -n "$candidate" ] && [ -x "$candidate" ] && "$candidate" -c 'import sys; assert sys.version_info[:2] == (3, 13)' 2>/dev/null &&
      { echo "$candidate"; return; }
  done
  die "BuildGrid 0.9.1 needs CPython 3.13: set REMOTE_PYTHON313 to a python3.13"
}
buildgrid_venv() {
  local lock_sha venv
  lock_sha=$(sha256sum "$here/requirements_lock.txt" | cut -c1-16)
  venv=$cache/buildgrid/$lock_sha
  if [ ! -e "$venv/.complete" ]; then
    log "installing BuildGrid into $venv (once)"
    rm -rf "$venv"
    "$(python313)" -m venv "$venv"
    "$venv/bin/pip" install -q --no-deps --require-hashes -r "$here/requirements_lock.txt" >"$state/logs/pip.log" 2>&1 ||
      die "installing BuildGrid failed; see $state/logs/pip.log"
    touch "$venv/.complete"
  fi
  echo "$venv"
}
postgres_bin() {
  local bin
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
  if [ -z "$bin" ]; then
    log "installing Debian's PostgreSQL server (once)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null 2>&1 ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null; }
    bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)
  fi
  echo "$bin"
}
start_server() {
  local pg venv
  pg=$(postgres_bin)
  venv=$(buildgrid_venv)
  mkdir -p "$state/db"
  chown postgres "$state/db"
  runuser -u postgres -- "$pg/initdb" -D "$state/db/data" -A trust -U bgd >"$state/logs/initdb.log" 2>&1
  daemon postgres runuser -u postgres -- "$pg/postgres" -D "$state/db/data" -h 127.0.0.1 -p "$db_port" -k "$state/db"
  wait_for PostgreSQL 30 "$pg/pg_isready" -q -h 127.0.0.1 -p "$db_port"
  "$pg/createdb" -h 127.0.0.1 -p "$db_port" -U bgd bgd
  local url=postgresql://bgd@127.0.0.1:$db_port/bgd
  "$venv/bin/bgd" migrate apply "$url" >"$state/logs/migrate.log" 2>&1 || die "bgd migrate failed; see $state/logs/migrate.log"
  sed -e "s|@PORT@|$port|" -e "s|@DATABASE_URL@|$url|" -e "s|@STATE_DIR@|$state|" -e "s|@KEEPALIVE@|$keepalive|" \
    "$here/server.yml" >"$state/server.yml"
  mkdir -p "$state/cas"
  daemon buildgrid "$venv/bin/bgd" server start "$state/server.yml"
  wait_for BuildGrid 60 listening "$port"
}

# --- Workers ------------------------------------------------------------------
# A process in the image sees only the image, and no variable of this shell.
in_image=(chroot "$image" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/nonexistent TMPDIR=/var/lib/re/tmp)
start_worker() {
  local i=$1 dir=/var/lib/re/worker-$1
  mkdir -p "$image$dir/cache" "$image/var/lib/re/tmp"
  daemon "casd-$i" "${in_image[@]}" buildbox-casd --cas-remote="http://127.0.0.1:$port" --cas-instance=main \
    --bind="unix:$dir/casd.sock" --quota-high=4G "$dir/cache"
  wait_for "casd-$i" 30 test -S "$image$dir/casd.sock"
  daemon "worker-$i" "${in_image[@]}" buildbox-worker --bots-remote="http://127.0.0.1:$port" --bots-instance=main \
    --cas-remote="unix:$dir/casd.sock" --buildbox-run=/opt/llm_ondevice/output_paths_runner.py \
    --runner-arg=--real-runner=/usr/bin/buildbox-run-hosttools --platform OSFamily=linux --platform ISA=x86-64 \
    --concurrent-jobs=1 "worker-$i"
}

# Prints I when process PID runs under worker I (an action it executes).
worker_of() {
  local sid name
  sid=$(ps -o sid= -p "$1" | tr -d ' ')
  for name in "$state"/pids/worker-*; do
    [ "$(cat "$name")" = "$sid" ] && { echo "${name##*/worker-}"; return 0; }
  done
  return 1
}

failed_start() {
  local logs
  logs=$(mktemp -d /tmp/llm-ondevice-cluster-logs.XXXXXX)
  cp -r "$state/logs/." "$logs" 2>/dev/null || true
  stop
  log "start failed; everything it started is stopped, and its logs are in $logs"
}

start() {
  local workers=2 arg i
  for arg in "$@"; do
    case $arg in
      --workers=*) workers=${arg#--workers=} ;;
      *) die "unknown option $arg" ;;
    esac
  done
  [[ $workers =~ ^[1-9][0-9]?$ ]] || die "--workers=$workers: give a number of workers from 1 to 99"
  [ "$(id -u)" = 0 ] || die "needs root (chroot and mount)"
  [ ! -d "$state/pids" ] || die "already running (state in $state); run: $0 stop"
  mkdir -p "$state/pids" "$state/logs"
  # Any failure (a die as much as a failing command) stops what started,
  # keeping the logs.
  trap failed_start EXIT
  make_image
  mount_system
  mount_venvs
  # The image is what docs/remote.md lists, and never this machine's cache.
  [ ! -e "$image$cache" ] || die "the worker image can see $cache; remove $image$cache"
  start_server
  for ((i = 0; i < workers; i++)); do start_worker "$i"; done
  trap - EXIT
  log "up: grpc://127.0.0.1:$port, instance main, $workers workers (state in $state)"
}

unmount_all() {
  local mount
  [ -f "$mounts_file" ] || return 0
  tac "$mounts_file" | while read -r mount; do
    umount "$mount" 2>/dev/null || umount -l "$mount" || log "could not unmount $mount"
  done
  rm -f "$mounts_file"
}

# Everything that is made once per machine, and nothing started: .ci/run
# does this in the background while the tests run.
prepare() {
  [ "$(id -u)" = 0 ] || die "needs root (chroot and mount)"
  [ ! -d "$state/pids" ] || die "running (state in $state); prepare before start, or run: $0 stop"
  mkdir -p "$state/logs"
  trap unmount_all EXIT
  make_image
  buildgrid_venv >/dev/null
  postgres_bin >/dev/null
  log "prepared: the image $image, BuildGrid and PostgreSQL"
}

stop() {
  local name
  # Workers first: a server that goes first leaves them failing their
  # final bot session update.
  for name in "$state"/pids/worker-* "$state"/pids/casd-* "$state"/pids/buildgrid "$state"/pids/postgres; do
    [ -e "$name" ] && end "$(basename "$name")"
  done
  unmount_all
  rm -rf "$state" "$image/var/lib/re"
  log "stopped"
}

status() {
  local pid name up=0
  [ -d "$state/pids" ] || {
    echo "cluster: not running"
    return 1
  }
  for pid in "$state"/pids/*; do
    name=$(basename "$pid")
    if alive "$name"; then echo "  $name: running (pid $(cat "$pid"))"; up=$((up + 1)); else echo "  $name: dead"; fi
  done
  echo "cluster: $up processes up, grpc://127.0.0.1:$port"
}

case ${1:-} in
  prepare) prepare ;;
  start) shift && start "$@" ;;
  stop) stop ;;
  status) status ;;
  kill-worker) end "worker-${2:?which worker}" KILL ;;
  worker-of) worker_of "${2:?which process}" ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' && exit 2 ;;
esac
