#!/usr/bin/env bash
# Runs a suite (default configs/smoke.json: every workload at tiny sizes, on
# the CPU unless a GPU is visible) through the launcher, `mlb --jobs`, with one
# instance per slot in its cgroup, and prints the result lines.
#
#   scripts/smoke.sh [JOBS_FILE] [OUTDIR] [MLB OPTIONS...]
#
# Sets up the PyTorch environment on first use and builds mlb and the plugins
# (release). Exits non-zero when any config fails.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs_file="${1:-configs/smoke.json}"
outdir="${2:-out/smoke}"
shift $(( $# < 2 ? $# : 2 ))
eval "$(scripts/torch-env.sh)"

cargo build --release --workspace
target="${CARGO_TARGET_DIR:-target}"
"$target/release/mlb" plugins list
cgroups=()
[[ "$(id -u)" -eq 0 ]] || cgroups=(--no-cgroups)   # creating cgroups needs root
"$target/release/mlb" --jobs "$jobs_file" --outdir "$outdir" "${cgroups[@]}" "$@"
