#!/bin/sh
# The GPU check of mlb (docs/gpu-check.md), run from the folder
# `cargo xtask gpu-pack` writes, where this script lies at the top beside
# the release tarball, `all_reduce` and bench/gpu-check and bench/parity:
#
#   OUT=results sh gpu-pack/gpu-check.sh            # on the GPU host: every step
#   sh gpu-pack/gpu-check.sh --out results --mode cpu --budget 240   # CPU mode (CI)
#
# Unpacks the release into a temporary prefix, then runs
# bench/gpu-check/check.py (its arguments are passed on) with python3 (or
# $PYTHON), the Python whose PyTorch the references run on. The plugins'
# RUNPATH names the build machine's libtorch: LD_LIBRARY_PATH points them at
# this Python's `torch/lib` instead (same PyTorch release).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python3}
torch_lib=$("$python" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
prefix=$(mktemp -d "${TMPDIR:-/tmp}/mlb-release.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
trap 'exit 130' INT TERM
tar -xzf "$here"/mlb-*-linux.tar.gz -C "$prefix"
mlb=$(find "$prefix" -path '*/bin/mlb' -type f | head -n 1)
if [ -z "$mlb" ]; then
    echo "gpu-check: no bin/mlb in $here/mlb-*-linux.tar.gz" >&2
    exit 2
fi
export LD_LIBRARY_PATH="$torch_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONUNBUFFERED=1
status=0
"$python" "$here/bench/gpu-check/check.py" --prefix "$(dirname "$(dirname "$mlb")")" \
    --all-reduce "$here/all_reduce" "$@" || status=$?
exit "$status"
