#!/bin/sh
# Installs Debian's `chromium`, which the HTML report test (`mlb report
# --format html`) uses to load the page headless and check its charts render.
# Idempotent: does nothing when chromium is already installed.
set -eu

if command -v chromium >/dev/null 2>&1; then
    echo "chromium already installed: $(command -v chromium)"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
else
    SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core
command -v chromium
