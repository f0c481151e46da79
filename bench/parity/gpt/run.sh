#!/usr/bin/env bash
# Parity benchmark of gpt: mlb against PyTorch eager (and torch.compile) on
# the CPU in fp32 and bf16, and the FLOPs check. Arguments go to run.py
# (--runs, --threads, --cpus, --no-compile, --shapes, --precisions, --no-flops).
set -euo pipefail
cd "$(dirname "$0")/../../.."
eval "$(scripts/torch-env.sh)"
cargo build --release -p mlb -p mlb-torch >&2
exec python bench/parity/gpt/run.py "$@"
