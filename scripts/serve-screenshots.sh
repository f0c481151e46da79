#!/usr/bin/env bash
# Screenshots of the pages of `mlb serve`, 1400 pixels wide, in headless
# Chromium: runs the browser tests of the pages (launcher/tests/it/serve/
# pages.rs), which build a known store with `mlb db import` (systems alpha,
# beta and wide; alpha's last run slower), start `mlb serve` on it and keep
# a PNG of each page they load in DIR: systems, runs, runs-beta (the runs
# filtered), run (a run's report, timelines, acceptance verdicts, a failed
# instance's log), compare, compare-27-benches, history (regressions in red),
# and the pages of an empty store (empty-*).
#   scripts/serve-screenshots.sh DIR
# Needs Chromium (scripts/setup-chromium.sh, or MLB_CHROMIUM=BINARY).
set -euo pipefail
if [ $# -ne 1 ]; then
    echo "usage: scripts/serve-screenshots.sh DIR" >&2
    exit 2
fi
cd "$(dirname "$0")/.."
mkdir -p "$1"
out=$(cd "$1" && pwd)
if [ -z "${MLB_CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1; then
    echo "serve-screenshots: chromium not found: run scripts/setup-chromium.sh (or set MLB_CHROMIUM)" >&2
    exit 1
fi
MLB_KEEP_SERVE_PAGES="$out" cargo test -p mlb --test it serve::pages:: -- --test-threads=1
ls -l "$out"/*.png
