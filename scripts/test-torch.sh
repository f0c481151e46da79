#!/usr/bin/env bash
# Builds mlb and the libtorch plugins (release) and runs the libtorch tests.
# Sets up the PyTorch environment on first use (scripts/torch-env.sh).
#
#   scripts/test-torch.sh            # build + test
#   scripts/test-torch.sh -- FILTER  # extra arguments go to `cargo test`
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(scripts/torch-env.sh)"

# Every libtorch crate of the workspace: mlb-torch and the workload plugins.
packages=(mlb-torch toy_reg toy_lstm vae convnet convnet_fp16 convnet_ddp convnet_ddp_fp16 dcgan reso wlm wlmfp16 loader
    translator cart atari ssd fast_style recom scaling convnet_distributed convnet_distributed_fp16 dcgan_all)
args=()
for p in "${packages[@]}"; do args+=(-p "$p"); done

cargo build --release -p mlb "${args[@]}"
[[ "${1:-}" == "--" ]] && shift
# The second-wave plugins keep their tests in their own crates.
cargo test --release -p mlb-torch -p mlb-torch-build \
    -p recom -p cart -p atari -p ssd -p fast_style -p translator -p scaling -p dcgan_all "$@"
