#!/usr/bin/env bash
# Runs the whole test suite on a fresh machine (as root: the tests create real
# cgroups and containers): installs what the tests need, then runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup-chromium.sh   # the HTML report test loads pages in headless Chromium
scripts/setup-docker.sh     # the Docker tests need a running daemon
scripts/setup-slurm.sh      # the Slurm tests need the two-node test cluster
trap 'scripts/setup-slurm.sh stop' EXIT

# Default members: mlb, the plugin ABI, spin. No libtorch needed.
cargo build --all-targets
cargo test

# The libtorch plugins: sets up the PyTorch venv on first use, builds, tests.
scripts/test-torch.sh

# The main job, end to end: the smoke suite through `mlb --jobs`, on the
# small data sets `mlb prepare` generates.
scripts/smoke-data.sh
