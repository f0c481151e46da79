#!/usr/bin/env bash
# The torch tier alone: builds the workspace with the libtorch workloads
# (release, in the PyTorch environment of scripts/torch-env.sh, set up on
# first use) and runs mlb-torch's tests. The steps are `cargo xtask test
# torch`'s (xtask/src/tiers.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo xtask test torch
