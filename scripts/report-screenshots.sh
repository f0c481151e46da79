#!/usr/bin/env bash
# Screenshots of the HTML report (`mlb report --format html`), 1400 pixels wide, in
# headless Chromium: runs the browser tests of the page
# (launcher/tests/it/report_html.rs), which keep each page they load and a
# PNG of it in DIR: report (four benches on four GPUs, one throttled
# instance's timelines), spread-25-configs (the spread chart's labels with
# 25 configs) and timelines-cpu-host (a host without GPU telemetry).
#   scripts/report-screenshots.sh [DIR]   (default: $CARGO_TARGET_DIR or target, /report-screenshots)
# Needs Chromium (scripts/setup-chromium.sh, or MLB_CHROMIUM=BINARY).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-${CARGO_TARGET_DIR:-target}/report-screenshots}
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -z "${MLB_CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1; then
    echo "report-screenshots: chromium not found: run scripts/setup-chromium.sh (or set MLB_CHROMIUM)" >&2
    exit 1
fi
MLB_KEEP_HTML_REPORT="$out" cargo test -p mlb --test it report_html:: -- --test-threads=1
ls -l "$out"/*.png
