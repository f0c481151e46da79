#!/usr/bin/env bash
# mlb's main job on a fresh machine: sets up the PyTorch environment (first
# use), builds mlb and every plugin, generates the small data sets the suite
# reads (`mlb prepare --scale small`, into ${MLB_BASE:-out}/data; a second
# run checks and skips them), lists the plugins, and runs the small suite
# (configs/smoke.json) through `mlb --jobs` on the CPU. Reports and
# summary.txt go to ${MLB_OUT:-out/smoke}; a report summary is printed last.
# Extra arguments go to `mlb --jobs`. The steps are `cargo xtask smoke`'s
# (xtask/src/smoke.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo xtask smoke --base "${MLB_BASE:-out}" --out "${MLB_OUT:-out/smoke}" -- "$@"
