#!/usr/bin/env bash
# Runs the whole test suite on a fresh machine (as root: the tests create real
# cgroups and containers), tier by tier, cheap ones first: unit, root,
# postgres, docker, slurm, browser, torch, then the smoke suite on prepared
# data. Each tier installs or starts what it needs (PostgreSQL, Chromium,
# Docker, the Slurm test cluster, PyTorch) before it runs; the time of each tier is printed last.
# Arguments name tiers to run instead of all (docs/testing.md).
set -euo pipefail
cd "$(dirname "$0")/.."

# The postgres and slurm tiers start their servers: stopped at the end.
trap 'scripts/setup-slurm.sh stop; scripts/setup-postgres.sh stop' EXIT
cargo xtask test "$@"
