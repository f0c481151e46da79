#!/usr/bin/env bash
# mlb's main job on a fresh machine: builds mlb and its plugins, lists them,
# and runs the small CPU suite. Reports go to ${MLB_OUT:-out/smoke}.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${MLB_OUT:-out/smoke}

cargo build --release
./target/release/mlb plugins list
plugin=$PWD/target/release/libmlb_spin.so
for size in 32 64 128; do
    ./target/release/mlb worker --plugin "$plugin" --suite smoke --name "spin_$size" --outdir "$out" \
        --config "{\"repeat\": 15, \"number\": 20, \"size\": $size}"
done
scripts/smoke.sh configs/smoke.json "$out"   # the libtorch workloads at tiny sizes (PyTorch venv on first use)
echo "reports in $out"
