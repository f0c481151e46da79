#!/usr/bin/env bash
# Builds mlb and the libtorch plugin library (release) and runs the libtorch
# tests. Sets up the PyTorch environment on first use (scripts/torch-env.sh).
#
#   scripts/test-torch.sh            # build + test
#   scripts/test-torch.sh -- FILTER  # extra arguments go to `cargo test`
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(scripts/torch-env.sh)"

# mlb-torch is the one libtorch crate: every workload is a module of it, and
# its cdylib (libmlb_torch.so) exports them all.
cargo build --release -p mlb -p mlb-torch
[[ "${1:-}" == "--" ]] && shift
cargo test --release -p mlb-torch -p mlb-torch-build "$@"
