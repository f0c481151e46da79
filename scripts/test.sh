#!/usr/bin/env bash
# Runs the whole test suite on a fresh machine: installs what the tests need,
# then runs every test of the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup-chromium.sh   # the HTML report test loads pages in headless Chromium
scripts/setup-docker.sh     # the Docker tests need a running daemon

cargo build --all-targets
cargo test
scripts/test-torch.sh       # the libtorch plugins: sets up the PyTorch venv on first use, builds, tests
