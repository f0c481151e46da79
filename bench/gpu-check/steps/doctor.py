"""`mlb doctor`: is this host fit to measure on (the GPUs idle, persistence,
clocks, power limits, PCIe links through NVML; cgroups; disk space)? Its
checks as its `doctor.json` gives them; the step fails when one of them
does."""
import json
import os
import subprocess

from runner import Failed, Step


def run(context, figures):
    folder = context.folder("doctor")
    status = subprocess.run([context.mlb, "doctor", "--outdir", folder]).returncode
    with open(os.path.join(folder, "doctor.json")) as f:
        verdict = json.load(f)
    for check in verdict.get("checks", []):
        figures.row("checks", {k: check.get(k) for k in ("name", "status", "found", "fix")})
    failed = [c["name"] for c in verdict.get("checks", []) if c.get("status") == "fail"]
    if status != 0 or failed:
        raise Failed(f"mlb doctor exit status {status}; failed checks: {', '.join(failed) or 'none'}")


STEP = Step("doctor", "`mlb doctor`", {"gpu": 20, "cpu": 20}, run)
