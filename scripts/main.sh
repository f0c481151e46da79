#!/usr/bin/env bash
# mlb's main job on a fresh machine: sets up the PyTorch environment (first
# use), builds mlb and every plugin, lists them, and runs the small suite
# (configs/smoke.json) through `mlb --jobs` on the CPU. Reports and
# summary.txt go to ${MLB_OUT:-out/smoke}; a report summary is printed last.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${MLB_OUT:-out/smoke}

scripts/smoke.sh configs/smoke.json "$out"
"${CARGO_TARGET_DIR:-target}/release/mlb" report --reports "$out" --suite smoke
