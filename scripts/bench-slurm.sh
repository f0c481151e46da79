#!/usr/bin/env bash
# Start-up cost of a Slurm step against a bare run, with one tiny spin config
# (11 steps of an 8x8 product: start-up dominates), two instances each:
#   - bare: `mlb --devices 2` on one node (two cgroup slots);
#   - slurm: `mlb --slurm` on the two nodes of the test cluster
#     (scripts/setup-slurm.sh), one task per node.
# For each run it measures, from the instances' reports (`start_time` is
# written when the worker's setup is done, just before its first step):
#   - launch: from the launcher's start until every instance is at its first
#     step;
#   - step (slurm): from the step's start (its plan file, written just before
#     srun starts) until every instance is at its first step;
#   - total: from the launcher's start to its exit.
# Prints the median of RUNS runs of each and the slurm/bare ratios.
#   cargo xtask bench slurm [RUNS]       (default 7; builds first)
#   scripts/bench-slurm.sh [RUNS]        (on an existing release build)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
target=${CARGO_TARGET_DIR:-target}
mlb=$(realpath "$target/release/mlb")
plugins=$(realpath "$target/release")
export SLURM_CONF=${MLB_SLURM_DIR:-/run/mlb-slurm}/slurm.conf
scripts/setup-slurm.sh >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/jobs.json" <<'JOBS'
[{"name": "tiny", "plugin": "spin", "args": {"repeat": 11, "number": 1, "size": 8}, "cgroup": "student"}]
JOBS
export MLB_LOCK="$work/lock"

# Seconds from T0 to the last instance's first step, and from T0 to the step
# plan's mtime (or -), for the reports under OUT.
at_first_step() { # OUT T0
    python3 - "$1" "$2" <<'PY'
import datetime, glob, json, os, sys
out, t0 = sys.argv[1], float(sys.argv[2])
starts = []
for f in glob.glob(os.path.join(out, "**", "*.json"), recursive=True):
    if "/slurm/" in f or f.endswith("system.json"):
        continue
    r = json.load(open(f))
    if isinstance(r, dict) and r.get("start_time"):
        t = datetime.datetime.strptime(r["start_time"], "%Y-%m-%d %H:%M:%S.%f")
        starts.append(t.replace(tzinfo=datetime.timezone.utc).timestamp())
plans = glob.glob(os.path.join(out, "slurm", "*.step*.json"))
step = min(os.stat(p).st_mtime for p in plans) - t0 if plans else None
print(f"{max(starts) - t0:.4f} {step if step is None else f'{step:.4f}'} {len(starts)}")
PY
}

# One line per run: launch, step start (or None), reports, total seconds.
times() { # MODE
    for i in $(seq "$runs"); do
        out="$work/out-$1-$i"
        t0=$(date +%s.%N)
        if [ "$1" = slurm ]; then
            "$mlb" --plugin-dir "$plugins" --slurm --jobs "$work/jobs.json" --outdir "$out" >/dev/null 2>&1
        else
            "$mlb" --plugin-dir "$plugins" --devices 2 --jobs "$work/jobs.json" --outdir "$out" >/dev/null 2>&1
        fi
        t1=$(date +%s.%N)
        echo "$(at_first_step "$out" "$t0") $(echo "$t1 - $t0" | bc)"
    done
}
median() { # COLUMN
    awk -v c="$1" '{print $c}' | sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", m}'
}

times bare >"$work/bare"
export -f times at_first_step
export mlb plugins work runs
salloc -Q -N2 --ntasks-per-node=1 bash -c 'times slurm' >"$work/slurm"
for f in bare slurm; do
    n=$(awk '$3 == 2' "$work/$f" | wc -l)
    [ "$n" = "$runs" ] || { echo "$f: only $n of $runs runs wrote two reports:" >&2; cat "$work/$f" >&2; exit 1; }
done
b_launch=$(median 1 <"$work/bare"); s_launch=$(median 1 <"$work/slurm")
b_total=$(median 4 <"$work/bare"); s_total=$(median 4 <"$work/slurm")
s_plan=$(median 2 <"$work/slurm")
s_step=$(awk '{print $1 - $2}' "$work/slurm" | median 1)
echo "one tiny config, two instances, medians of $runs runs (seconds):"
echo "                                            bare (1 node)  slurm (2 nodes)  slurm/bare"
printf "  launcher start -> every instance at step 1  %8s      %8s        %.2f\n" "$b_launch" "$s_launch" "$(echo "$s_launch / $b_launch" | bc -l)"
printf "  step start -> every instance at step 1           -      %8s\n" "$s_step"
printf "  launcher start -> step start                     -      %8s\n" "$s_plan"
printf "  launcher start -> exit                      %8s      %8s        %.2f\n" "$b_total" "$s_total" "$(echo "$s_total / $b_total" | bc -l)"
