#!/usr/bin/env bash
# Data parallel benchmark: mlb's c10d (Gloo) path against torch.distributed,
# 2 ranks on this machine. Prints markdown tables (medians of several runs).
# Arguments go to ddp.py (--runs, --iters).
set -euo pipefail
cd "$(dirname "$0")/../.."
eval "$(scripts/torch-env.sh)"
cargo build --release -p mlb -p mlb-torch >&2
cargo build --release -p mlb-torch --example all_reduce >&2
exec python bench/parity/ddp.py "$@"
