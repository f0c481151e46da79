#!/usr/bin/env bash
# Parity benchmark, second wave: each workload written in PyTorch Python
# (reference.py) against the mlb plugin (release build) run through
# `mlb worker`, same sizes, seed, thread count and steps, on this machine in
# one run. Prints a Markdown table of items/s (median of RUNS runs each) and
# the ratio mlb / PyTorch.
#
#   bench/parity/wave2/run.sh                 # all rows, THREADS=1, RUNS=3
#   THREADS=2 RUNS=5 bench/parity/wave2/run.sh cart recom
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
eval "$("$root/scripts/torch-env.sh")"
threads="${THREADS:-1}"
runs="${RUNS:-3}"
seed=0

# name | config (as mlb's --config and reference.py's --config) | repeat number skip
rows=(
  'recom|{"batch_size": 2048}|8 10 3'
  'cart|{}|10 1000 3'
  'fast_style|{"batch_size": 8, "image_size": 64, "workers": 0}|6 2 2'
  'translator|{"batch_size": 16, "hidden": 256, "vocab": 4000, "max_length": 30}|6 3 2'
)
wanted=("$@")

plugins=()
for row in "${rows[@]}"; do plugins+=(-p "${row%%|*}"); done
(cd "$root" && cargo build --quiet --release -p mlb "${plugins[@]}")

median() { python3 -c 'import sys, statistics; print(statistics.median(float(v) for v in sys.argv[1:]))' "$@"; }

mlb_run() { # name config repeat number skip -> items/s
  local out; out="$(mktemp -d)"
  local config
  config="$(python3 -c 'import json, sys; c = json.loads(sys.argv[1]); c.update(repeat=int(sys.argv[2]), number=int(sys.argv[3]), skip=int(sys.argv[4]), seed=int(sys.argv[5])); print(json.dumps(c))' "$2" "$3" "$4" "$5" "$seed")"
  "$root/target/release/mlb" worker --plugin "$root/target/release/libmlb_$1.so" --config "$config" \
    --outdir "$out" --threads "$threads" --device cpu --suite parity --name "$1" > /dev/null
  python3 -c 'import glob, json, sys; print(json.load(open(glob.glob(sys.argv[1] + "/*.json")[0]))["train_item"]["avg"])' "$out"
  rm -rf "$out"
}

py_run() { # name config repeat number skip -> items/s
  python "$here/reference.py" "$1" --config "$2" --threads "$threads" --seed "$seed" \
    --repeat "$3" --number "$4" --skip "$5" | python3 -c 'import json, sys; print(json.load(sys.stdin)["items_per_sec"])'
}

echo "threads: $threads, runs: $runs (median), seed: $seed, host: $(nproc) CPUs, torch $(python -c 'import torch; print(torch.__version__)')"
echo
echo "| workload | config | PyTorch items/s | mlb items/s | mlb / PyTorch |"
echo "|---|---|---:|---:|---:|"
for row in "${rows[@]}"; do
  IFS='|' read -r name config plan <<< "$row"
  if [[ ${#wanted[@]} -gt 0 && ! " ${wanted[*]} " == *" $name "* ]]; then continue; fi
  read -r repeat number skip <<< "$plan"
  py=() ml=()
  for _ in $(seq "$runs"); do
    py+=("$(py_run "$name" "$config" "$repeat" "$number" "$skip")")
    ml+=("$(mlb_run "$name" "$config" "$repeat" "$number" "$skip")")
  done
  p="$(median "${py[@]}")" m="$(median "${ml[@]}")"
  printf '| %s | `%s` | %.1f | %.1f | %.2f |\n' "$name" "$config" "$p" "$m" "$(python3 -c "print($m / $p)")"
done
