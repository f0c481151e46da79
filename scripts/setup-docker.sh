#!/usr/bin/env bash
# Makes a Docker daemon reachable, idempotently, for mlb's container tests and
# `mlb --docker`. Run as root on a Debian/Ubuntu machine:
#   - installs `docker.io` with apt when `dockerd` is missing;
#   - starts `dockerd` in the background when it is not running (no systemd
#     needed), logging to ${DOCKERD_LOG:-/var/log/dockerd.log};
#   - waits until the daemon answers on its socket.
# Does nothing when the daemon already answers (also when DOCKER_HOST points
# at another daemon).
set -euo pipefail

log=${DOCKERD_LOG:-/var/log/dockerd.log}
timeout=${DOCKERD_TIMEOUT:-60}

answers() {
    if command -v docker >/dev/null 2>&1; then
        docker version --format '{{.Server.Version}}' >/dev/null 2>&1
    else
        # No CLI: ask the API on the default socket.
        [ -S /var/run/docker.sock ] && curl -fsS --unix-socket /var/run/docker.sock http://localhost/_ping >/dev/null 2>&1
    fi
}

if answers; then
    echo "setup-docker: the Docker daemon is running"
    exit 0
fi

if [ "$(id -u)" != 0 ]; then
    echo "setup-docker: the Docker daemon is not reachable and this script needs root to install or start it" >&2
    exit 1
fi

if ! command -v dockerd >/dev/null 2>&1; then
    echo "setup-docker: installing docker.io with apt"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q docker.io
fi

if [ -n "${DOCKER_HOST:-}" ]; then
    echo "setup-docker: DOCKER_HOST=$DOCKER_HOST does not answer; unset it to use the local daemon" >&2
    exit 1
fi

if ! pgrep -x dockerd >/dev/null 2>&1; then
    echo "setup-docker: starting dockerd (log: $log)"
    # containerd is started by dockerd itself when it is not running.
    nohup dockerd >>"$log" 2>&1 </dev/null &
fi

for _ in $(seq "$timeout"); do
    if answers; then
        echo "setup-docker: the Docker daemon is running"
        exit 0
    fi
    sleep 1
done
echo "setup-docker: dockerd did not answer within ${timeout}s; see $log" >&2
tail -n 20 "$log" >&2 || true
exit 1
