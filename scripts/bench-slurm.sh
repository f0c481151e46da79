#!/usr/bin/env bash
# Start-up cost of a Slurm step against a bare run: the wall time of one
# tiny spin config (11 steps of a 8x8 product: start-up dominates) from the
# launcher's start to its result line, under `mlb --slurm` on the two nodes
# of the test cluster (scripts/setup-slurm.sh) against bare `mlb` on one
# node. Prints the median of N runs of each and their ratio.
#   scripts/bench-slurm.sh [RUNS]        (default 7; needs a release build)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
target=${CARGO_TARGET_DIR:-target}
cargo build -q --release -p mlb -p spin
mlb=$(realpath "$target/release/mlb")
plugins=$(realpath "$target/release")
export SLURM_CONF=${MLB_SLURM_DIR:-/run/mlb-slurm}/slurm.conf
scripts/setup-slurm.sh >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/jobs.json" <<'JOBS'
[{"name": "tiny", "plugin": "spin", "args": {"repeat": 11, "number": 1, "size": 8}, "cgroup": "student"}]
JOBS

# One timed run per line of output, seconds.
times() { # MODE
    for i in $(seq "$runs"); do
        out="$work/out-$1-$i"
        t0=$(date +%s.%N)
        if [ "$1" = slurm ]; then
            "$mlb" --plugin-dir "$plugins" --slurm --jobs "$work/jobs.json" --outdir "$out" >/dev/null 2>&1
        else
            "$mlb" --plugin-dir "$plugins" --jobs "$work/jobs.json" --outdir "$out" >/dev/null 2>&1
        fi
        t1=$(date +%s.%N)
        echo "$t1 - $t0" | bc
    done
}
median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", m}'; }

bare=$(times bare | median)
export -f times median
export mlb plugins work runs
slurm=$(salloc -Q -N2 --ntasks-per-node=1 bash -c 'times slurm | median')
echo "one tiny config, start to result line, median of $runs:"
echo "  bare, 1 node, 1 instance:         ${bare} s"
echo "  --slurm, 2 nodes, 1 task each:    ${slurm} s"
echo "  ratio slurm/bare:                 $(echo "scale=2; $slurm / $bare" | bc)"
