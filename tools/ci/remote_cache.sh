#!/usr/bin/env bash
# Starts or stops a Bazel HTTP remote cache on 127.0.0.1:9092: nginx with
# WebDAV PUT, the server Bazel documents for --remote_cache=http://.
#   tools/ci/remote_cache.sh start DIR   # DIR holds the cache and nginx state
#   tools/ci/remote_cache.sh stop DIR
set -euo pipefail
action=${1:?start|stop}
dir=$(realpath -m "${2:?state directory}")
port=${REMOTE_CACHE_PORT:-9092}
case "$action" in
  start)
    mkdir -p "$dir/data" "$dir/tmp"
    # Workers run as whoever runs this script, so they can write under a
    # private home; without root, nginx ignores this line.
    cat > "$dir/nginx.conf" <<CONF
user $(id -un) $(id -gn);
worker_processes 2;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $dir/tmp;
  client_max_body_size 0;
  # nginx closes a connection that has been idle for 75 s, and Bazel 4.2.3
  # sends a request on a kept connection without retrying it if the server
  # closed it meanwhile: the build passes with a "Writing to Remote Cache"
  # warning, and that action's result never reaches the cache. Actions
  # longer than the timeout make that likely (measured: 3 of 80 one-second
  # genrules lost with a 1 s timeout, none with this one).
  keepalive_timeout 4h;
  server {
    listen 127.0.0.1:$port;
    root $dir/data;
    location / {
      dav_methods PUT;
      create_full_put_path on;
      dav_access user:rw group:rw all:r;
    }
  }
}
CONF
    nginx -c "$dir/nginx.conf"
    for _ in $(seq 50); do
      curl -sf -o /dev/null -X PUT --data ok "http://127.0.0.1:$port/probe" && break
      sleep 0.1
    done
    if ! curl -sf "http://127.0.0.1:$port/probe" >/dev/null; then
      cat "$dir/error.log" >&2
      nginx -c "$dir/nginx.conf" -s stop || true
      exit 1
    fi
    echo "remote cache: http://127.0.0.1:$port (data in $dir/data)"
    ;;
  stop)
    [ -f "$dir/nginx.pid" ] && nginx -c "$dir/nginx.conf" -s stop || true
    ;;
  *) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
