#!/usr/bin/env bash
# The smoke suite on data sets `mlb prepare` generates: prepares the small
# data sets configs/smoke.json reads into a temporary base folder, runs the
# suite against it (scripts/smoke.sh) and checks every job that names a data
# folder read it: its report names the folder and has no `data_missing`.
#
#   scripts/smoke-data.sh [MLB OPTIONS...]
set -euo pipefail
cd "$(dirname "$0")/.."
base="$(mktemp -d)"
trap 'rm -rf "$base"' EXIT
eval "$(scripts/torch-env.sh)"
cargo build --release -p mlb
target="${CARGO_TARGET_DIR:-target}"
"$target/release/mlb" prepare --jobs configs/smoke.json --scale small --base "$base"
scripts/smoke.sh configs/smoke.json "$base/output" --base "$base" "$@"
python3 - "$base/output" "$base/data" <<'PY'
import json, pathlib, sys

out, data = pathlib.Path(sys.argv[1]), sys.argv[2] + "/"
read, wrong = 0, []
for path in sorted(out.rglob("*.json")):
    report = json.loads(path.read_text())
    named = [v for k, v in report.items() if k in ("data", "dataroot") and isinstance(v, str) and v.startswith(data)]
    if not named:
        continue
    if "data_missing" in report or not str(report.get("data", "")).startswith(data):
        wrong.append(f"{path.name}: data {report.get('data')!r}, data_missing {report.get('data_missing')!r}")
    read += 1
if wrong or read < 15:
    sys.exit(f"smoke-data: {read} reports read prepared data; not read:\n" + "\n".join(wrong))
print(f"smoke-data: {read} reports read the prepared data sets under {data}")
PY
