#!/usr/bin/env bash
# Parity of gemm (mlb burn's matrix product workload) with a matmul loop in
# PyTorch on the same CPUs: prints a markdown table of the medians and their
# ratio. Arguments go to gemm.py (--runs, --threads, --cpus, --precision, --size).
set -euo pipefail
cd "$(dirname "$0")/../.."
eval "$(scripts/torch-env.sh)"
cargo build --release -p mlb-torch >&2
cargo build -p mlb >&2
exec python bench/parity/gemm.py "$@"
