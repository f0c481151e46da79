#!/usr/bin/env bash
# Parity benchmark, second wave: recom, cart, fast_style and translator as mlb
# plugins against the same models in PyTorch Python. Prints a markdown table
# (medians of several runs, both sides pinned to the same CPUs and thread
# count). Arguments go to the harness (--runs, --threads, --cpus, --only ...).
set -euo pipefail
cd "$(dirname "$0")/../../.."
eval "$(scripts/torch-env.sh)"
cargo build --release -p mlb -p mlb-torch >&2
exec python bench/parity/wave2/run.py "$@"
