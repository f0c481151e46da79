#!/usr/bin/env python3
"""mlb's GPU check: the GPU checklist scripted (docs/gpu-check.md). Runs
the steps of steps/ in the order of their value, each within its own time
budget and the run's, against an installed mlb and this Python's PyTorch,
and writes after every step, to --out:

  gpu-check.json  the run and one entry per step: name, title, status (ok,
                  failed, skipped: no GPU, not run: time), seconds, budget,
                  figures, and the error of a failed step
  gpu-check.md    the same as Markdown tables
  gpu-check.log   the end of each step's output

    check.py --prefix DIR [--out DIR] [--mode auto|gpu|cpu] [--budget S] [--work DIR] [--all-reduce FILE]
             [--only STEP,...]

`--mode auto` is `gpu` when `mlb detect` finds a GPU. CPU mode runs the same
steps at tiny sizes on the CPU and skips those that need a GPU: CI runs it.
Exit status 0 when every step is ok or skipped for want of a GPU, else 1.
Run through gpu-check.sh, which unpacks the release into a prefix and
points the plugins at this Python's libtorch.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(1, os.path.join(os.path.dirname(HERE), "parity"))  # bench/parity: the harness and references

import render  # noqa: E402
from context import Context  # noqa: E402
from runner import NO_GPU, OK, run_steps  # noqa: E402
from steps import burn, doctor, mfu, nccl, parity, slots, telemetry, workloads  # noqa: E402

STEPS = [m.STEP for m in (workloads, parity, mfu, burn, nccl, telemetry, doctor, slots)]
# The run's budget, in seconds: on a GPU host the whole check fits in 8
# minutes with room for start-up.
TOTAL_S = {"gpu": 450, "cpu": 300}
# Intra-op threads of each side of a comparison.
THREADS = {"gpu": 4, "cpu": 1}
# Lines of each step's log kept in gpu-check.log.
LOG_LINES = 200


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prefix", required=True,
                        help="the installed mlb: bin/mlb, lib/mlb/plugins, share/mlb/configs")
    parser.add_argument("--out", default=os.environ.get("OUT") or "gpu-check",
                        help="folder of gpu-check.json, .md and .log (default: $OUT, else ./gpu-check)")
    parser.add_argument("--mode", choices=["auto", "gpu", "cpu"], default="auto")
    parser.add_argument("--budget", type=float,
                        help="seconds for the whole run (default: 450 on a GPU, 300 on the CPU)")
    parser.add_argument("--work", help="folder for the steps' reports and logs (default: a new temporary one)")
    parser.add_argument("--all-reduce", help="mlb's NCCL all-reduce timing (the pack's all_reduce)")
    parser.add_argument("--only", help="run only these steps (comma-separated names), for a rerun")
    opts = parser.parse_args()
    steps = [s for s in STEPS if not opts.only or s.name in opts.only.split(",")]

    mlb = os.path.join(opts.prefix, "bin", "mlb")
    host = json.loads(subprocess.run([mlb, "detect", "--format", "json"], stdout=subprocess.PIPE, text=True, check=True).stdout)
    gpu = opts.mode == "gpu" or (opts.mode == "auto" and bool(host.get("gpus")))
    mode = "gpu" if gpu else "cpu"
    work = opts.work or tempfile.mkdtemp(prefix="gpu-check-")
    os.makedirs(work, exist_ok=True)
    os.makedirs(opts.out, exist_ok=True)
    context = Context(opts.prefix, work, gpu, min(THREADS[mode], len(os.sched_getaffinity(0))), opts.all_reduce,
                      bool((host.get("cgroup") or {}).get("can_create")))
    check = {
        "mode": mode,
        "device": ", ".join(g.get("name", "?") for g in host.get("gpus") or []) if gpu else "the CPU",
        "mlb": version([mlb, "--version"]),
        "torch": version([sys.executable, "-c", "import torch; print(torch.__version__, 'CUDA', torch.version.cuda)"]),
        "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "budget_s": opts.budget or TOTAL_S[mode],
        "seconds": 0.0,
        "work": work,
        "steps": [],
    }
    start = time.monotonic()
    print(f"gpu-check: {mode} mode, {check['device']}; reports in {work}, results in {opts.out}", flush=True)

    def write(results):
        check.update(steps=results, seconds=round(time.monotonic() - start, 1))
        last = results[-1]
        print(f"gpu-check: {last['name']}: {last['status']} ({last['seconds']} s)", flush=True)
        with open(os.path.join(opts.out, "gpu-check.json"), "w") as f:
            json.dump(check, f, indent=1)
        with open(os.path.join(opts.out, "gpu-check.md"), "w") as f:
            f.write(render.markdown(check))
        with open(os.path.join(opts.out, "gpu-check.log"), "w") as f:
            for step in results:
                f.write(f"===== {step['name']}: {step['status']}\n{tail(os.path.join(work, step['name'] + '.log'))}\n")

    results = run_steps(steps, context, mode, check["budget_s"], work, on_result=write)
    return 0 if all(step["status"] in (OK, NO_GPU) for step in results) else 1


def version(cmd):
    """What `cmd` prints, on one line (or why it printed nothing)."""
    done = subprocess.run(cmd, capture_output=True, text=True)
    return " ".join(done.stdout.split()) or f"unknown ({' '.join(done.stderr.split())[-200:]})"


def tail(path):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-LOG_LINES:])
    except FileNotFoundError:
        return ""


if __name__ == "__main__":
    sys.exit(main())
