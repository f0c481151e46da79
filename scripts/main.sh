#!/usr/bin/env bash
# mlb's main job on a fresh machine: sets up the PyTorch environment (first
# use), builds mlb and every plugin, generates the small data sets the suite
# reads (`mlb prepare --scale small`, into ${MLB_BASE:-out}/data; a second
# run checks and skips them), lists the plugins, and runs the small suite
# (configs/smoke.json) through `mlb --jobs` on the CPU. Reports and
# summary.txt go to ${MLB_OUT:-out/smoke}; a report summary is printed last.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${MLB_OUT:-out/smoke}
base=$(realpath -m "${MLB_BASE:-out}")
target="${CARGO_TARGET_DIR:-target}"

cargo build --release -p mlb
"$target/release/mlb" prepare --jobs configs/smoke.json --scale small --base "$base"
scripts/smoke.sh configs/smoke.json "$out" --base "$base"
"$target/release/mlb" report --reports "$out" --suite smoke
