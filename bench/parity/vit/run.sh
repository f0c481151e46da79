#!/usr/bin/env bash
# Parity benchmark of vit: mlb against the same model in PyTorch eager, fp32
# and bf16 on the CPU, with a torch.compile column. Arguments go to
# vit/run.py (--runs, --threads, --cpus, --no-compile, --shapes, --precisions).
set -euo pipefail
cd "$(dirname "$0")/../../.."
eval "$(scripts/torch-env.sh)"
cargo build --release -p mlb -p mlb-torch >&2
exec python bench/parity/vit/run.py "$@"
