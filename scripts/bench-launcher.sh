#!/usr/bin/env bash
# The launcher's own cost with the full install: builds mlb and every plugin
# (release, in the PyTorch environment of scripts/torch-env.sh) into one
# target folder, then runs the launcher_overhead bench, which lays out a
# spin-only install and a full one (every plugin built next to mlb), prints
# medians and peak RSS of `mlb --jobs`, `mlb plugins list` and
# `mlb plugins list --verify`, and checks them against the limits of
# docs/plugins.md ("Cost").
#
#   scripts/bench-launcher.sh
#   MLB_BENCH_PLUGINS=DIR scripts/bench-launcher.sh   # the full install is DIR/*.so (plus spin)
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(scripts/torch-env.sh)"
cargo build --release --workspace
cargo bench -p mlb --bench launcher_overhead
