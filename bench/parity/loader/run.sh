#!/usr/bin/env bash
# The loader workload against PyTorch's DataLoader + PIL on a JPEG tree that
# `mlb prepare` generates (the fake ImageNet at scale small: 80 JPEGs of about
# 500x375 in 10 classes). PIL and torchvision are not in the PyTorch venv: they
# are installed once, beside it, into ${MLB_CACHE:-~/.cache/mlb}/bench-vision
# (pillow, numpy and torchvision 0.26.0, the release of torch 2.11.0;
# without dependencies, so the venv's torch stays).
# Arguments go to run.py (--runs, --batch-size, --workers, --cpus ...).
set -euo pipefail
cd "$(dirname "$0")/../../.."
eval "$(scripts/torch-env.sh)"
vision="${MLB_CACHE:-$HOME/.cache/mlb}/bench-vision"
if ! PYTHONPATH="$vision" python -c "import PIL, numpy, torchvision" 2>/dev/null; then
    python -m pip install --quiet --target "$vision" --no-deps pillow numpy "torchvision==0.26.0" >&2
fi
export PYTHONPATH="$vision"
cargo build --release -p mlb -p mlb-torch >&2
target="${CARGO_TARGET_DIR:-target}"
base="$(mktemp -d)"
trap 'rm -rf "$base"' EXIT
"$target/release/mlb" prepare --name loader --base "$base" >&2
exec python bench/parity/loader/run.py "$base/data/ImageNet/train" "$@"
