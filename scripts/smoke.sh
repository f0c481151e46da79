#!/usr/bin/env bash
# Runs the smoke suite (configs/smoke.json: every libtorch workload at tiny
# sizes, on the CPU unless a GPU is visible) through `mlb worker`, one
# instance per job config, and prints one result line per config.
#
#   scripts/smoke.sh [JOBS_FILE] [OUTDIR]
#
# Sets up the PyTorch environment on first use and builds mlb and the plugins
# (release). Exits non-zero when any config fails.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs_file="${1:-configs/smoke.json}"
outdir="${2:-${OUTPUT_DIRECTORY:-$PWD/target/smoke}}"
eval "$(scripts/torch-env.sh)"

plugins=(toy_reg toy_lstm vae convnet convnet_fp16 dcgan reso wlm wlmfp16 loader
    translator cart atari ssd fast_style recom scaling convnet_distributed convnet_distributed_fp16 dcgan_all)
build=(-p mlb)
for p in "${plugins[@]}"; do build+=(-p "$p"); done
cargo build --release "${build[@]}"

mkdir -p "$outdir"
bin="$PWD/target/release"
threads="$(nproc)"
suite="$(basename "$jobs_file")"
suite="${suite%%.*}"

# One line per job config: name <TAB> plugin <TAB> args JSON (list values
# expanded as the cartesian product, in JSON order).
configs="$(python3 - "$jobs_file" <<'PY'
import itertools, json, sys
for job in json.load(open(sys.argv[1])):
    args = job.get("args", {})
    keys = [k for k, v in args.items() if isinstance(v, list)]
    for values in itertools.product(*(args[k] for k in keys)):
        config = dict(args)
        config.update(zip(keys, values))
        print(job["name"], job["plugin"], json.dumps(config), sep="\t")
PY
)"

total="$(wc -l <<<"$configs")"
failed=0
index=0
suite_start="$EPOCHREALTIME"
while IFS=$'\t' read -r name plugin config; do
    index=$((index + 1))
    start="$EPOCHREALTIME"
    status=PASSED
    if ! "$bin/mlb" worker --plugin "$bin/libmlb_$plugin.so" --config "$config" --name "$name" \
        --suite "$suite" --outdir "$outdir" --threads "$threads" >"$outdir/$name.$index.log" 2>&1; then
        status=FAILED
        failed=$((failed + 1))
    fi
    minutes="$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { print (b - a) / 60 }')"
    printf '[%2d/%2d] %s | %8.2f MIN | %s %s\n' "$index" "$total" "$status" "$minutes" "$name" "$config"
    if [[ $status == FAILED ]]; then tail -5 "$outdir/$name.$index.log" | sed 's/^/    /'; fi
done <<<"$configs"
printf 'Total Time %8.2f s (%d of %d configs failed); reports in %s\n' \
    "$(awk -v a="$suite_start" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')" "$failed" "$total" "$outdir"
[[ $failed -eq 0 ]]
