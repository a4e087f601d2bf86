#!/usr/bin/env bash
# Builds and tests e2e/smoke on a real remote-execution cluster (BuildGrid and
# two buildbox workers on loopback, tools/remote/cluster.sh), from an empty
# cache, and checks what a team relies on:
#   1. every action runs on a worker, none here (its export, its checkpoint,
#      its RAG index, its test), with the execution log to show it;
#   2. the programs and the index are byte-identical to this machine's build;
#   3. a second client, on a clean output base, gets only remote cache hits;
#   4. a worker killed in the middle of an export costs nothing but time:
#      the export runs again on the other worker, with the same bytes;
#   5. a server stopped in the middle of a build fails it with an error
#      that names the remote executor.
#   tools/ci/remote_exec_check.sh
# Needs root (the cluster's chroot). Leaves nothing running.
set -euo pipefail
workspace=$(cd "$(dirname "$0")/../.." && pwd)
cluster=$workspace/tools/remote/cluster.sh
tmp=$(mktemp -d /tmp/remote_exec_check.XXXXXX)
clients=()
cleanup() {
  local base
  for base in "${clients[@]}"; do bazel --output_base="$base" shutdown >/dev/null 2>&1 || true; done
  bash "$cluster" stop >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
say() { echo "remote_exec_check: $*"; }

# A client with an output base of its own: nothing local stands in for the
# cluster. No convenience links: they belong to the workspace's own builds.
client() {  # <name> <bazel command and flags...>
  local base=$tmp/$1
  shift
  clients+=("$base")
  # A cluster whose workers are gone queues actions forever: fail instead.
  (cd "$workspace/e2e/smoke" && timeout "${REMOTE_CHECK_TIMEOUT:-1200}" bazel --output_base="$base" "$@" \
    --config=offline --config=remote_loopback --symlink_prefix=/)
}
outputs=(tiny_fp32.pte unseen_int4.pte minilm_fp32.pte notes.flat)
digests() {  # <bazel-bin>: the sha256 of each output, one line each
  (cd "$1" && sha256sum "${outputs[@]}")
}
# Bazel's own closing line: "N processes: A remote cache hit, B internal, C remote."
processes() { grep -Eo '[0-9]+ process(es)?: .*' "$1" | tail -n1; }
spawns() { python3 "$workspace/tools/ci/spawn_runners.py" "$@"; }

bash "$cluster" start --workers=2

# 1. From an empty cache, everything on the workers.
client first test --execution_log_json_file="$tmp/first.json" //... 2>&1 | tee "$tmp/first.log" |
  grep -E '^(INFO: [0-9]+ process|//|Executed|ERROR)' || true
grep -q "Executed 1 out of 1 test: 1 test passes" "$tmp/first.log" || {
  tail -n 40 "$tmp/first.log"
  bash "$cluster" status || true
  say "e2e/smoke failed on the cluster (or did not finish in ${REMOTE_CHECK_TIMEOUT:-1200} s)"
  exit 1
}
spawns "$tmp/first.json" --only remote --require ExecuTorchExport --require ExecuTorchEncoderExport \
  --require LlmCheckpoint --require RagEmbed --require RagIndex --require TestRunner
say "first client: $(processes "$tmp/first.log")"

# 2. The same bytes as this machine's own build (up to date when .ci/run has
# just tested e2e/smoke; built here otherwise).
(cd "$workspace/e2e/smoke" && bazel build --config=offline //:tiny_fp32 //:unseen_int4 //:minilm_fp32 //:notes \
  >"$tmp/local.log" 2>&1) ||
  { tail -n 40 "$tmp/local.log"; exit 1; }
first_bin=$tmp/first/execroot/smoke/bazel-out/k8-fastbuild/bin
local_bin=$(cd "$workspace/e2e/smoke" && bazel info --config=offline bazel-bin 2>/dev/null)
if ! diff <(digests "$first_bin") <(digests "$local_bin"); then
  say "the cluster's outputs differ from this machine's (above: < cluster, > here)"
  exit 1
fi
say "byte-identical to the local build:"
digests "$first_bin" | sed 's/^/  /'

# 3. A second client: every action a remote cache hit, the test included.
client second test --execution_log_json_file="$tmp/second.json" //... >"$tmp/second.log" 2>&1 ||
  { tail -n 40 "$tmp/second.log"; exit 1; }
spawns "$tmp/second.json" --only "remote cache hit" --require ExecuTorchExport --require TestRunner
say "second client: $(processes "$tmp/second.log")"

# Runs the export of //:tiny_fp32 again on a fresh client, in the
# background (its PID in $build), and waits until a worker runs it (its
# number in $worker).
export_in_background() {  # <client name>
  client "$1" build --noremote_accept_cached //:tiny_fp32 >"$tmp/$1.log" 2>&1 &
  build=$!
  local waited pid
  for ((waited = 0; waited < 600; waited++)); do
    for pid in $(pgrep -f 'tools/executorch/export_pte' || true); do
      worker=$(bash "$cluster" worker-of "$pid") && return 0
    done
    sleep 0.5
  done
  say "no worker started the export in 300 s"
  exit 1
}

# 4. Kill the worker that runs the export.
export_in_background killed
bash "$cluster" kill-worker "$worker"
say "killed worker-$worker in the middle of the export"
if ! wait "$build"; then
  tail -n 40 "$tmp/killed.log"
  say "the build did not survive the loss of a worker"
  exit 1
fi
cmp "$tmp/killed/execroot/smoke/bazel-out/k8-fastbuild/bin/tiny_fp32.pte" "$first_bin/tiny_fp32.pte"
say "the export ran again on the other worker, same bytes: $(processes "$tmp/killed.log")"

# 5. Stop the whole cluster in the middle of a build.
export_in_background stopped
bash "$cluster" stop
if wait "$build"; then
  say "the build succeeded with its server gone"
  exit 1
fi
error=$(grep -m1 -iE 'ERROR.*(remote|UNAVAILABLE|connection)' "$tmp/stopped.log" || true)
[ -n "$error" ] || {
  tail -n 40 "$tmp/stopped.log"
  say "the build failed without naming the remote executor"
  exit 1
}
say "server stopped mid-build: the build failed with: ${error:0:300}"
say "ok"
