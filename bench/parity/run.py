#!/usr/bin/env python3
"""Parity benchmark: mlb plugins (through `mlb worker`) against the same
models in PyTorch Python (reference.py), on this machine, in one run.

Both sides get the same sizes, seed, thread count, steps and CPU set (taskset);
runs alternate between the two sides. Prints a markdown table of medians of
items/s, the ratio of the medians mlb / PyTorch, and the median of the ratios
of adjacent runs (steadier when other work loads the machine), and the heap
policy the mlb side ran under (see docs/worker.md). Run through
bench/parity/run.sh, which sets up the environment and builds the plugins.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

# name, workload arguments, repeat, number, skip
CASES = [
    ("toy_reg", {"batch_size": 256}, 20, 100, 5),
    ("toy_lstm", {"dtype": "float32", "length": 300}, 4, 1, 1),
    ("vae", {"batch_size": 128}, 12, 30, 2),
    ("convnet", {"arch": "resnet18", "batch_size": 8}, 4, 2, 1),
    ("dcgan", {"batch_size": 16}, 4, 2, 1),
    ("wlm", {"batch_size": 8, "corpus_tokens": 100000}, 5, 2, 1),
]
GOALS = {"toy_reg": 1.5, "toy_lstm": 1.5}
# glibc's malloc settings of mlb's worker (its `keep-freed` heap policy,
# docs/worker.md: trim threshold at its maximum, mmap threshold at glibc's
# 32 MiB ceiling), as environment variables: a reference run under them has
# the same heap as the mlb side.
SAME_HEAP = {"MALLOC_TRIM_THRESHOLD_": str(2**31 - 1), "MALLOC_MMAP_THRESHOLD_": str(32 << 20)}


def run_mlb(root, pin, name, args, threads, seed, repeat, number, skip):
    config = dict(args, repeat=repeat, number=number, skip=skip, seed=seed)
    binary = os.path.join(os.environ.get("CARGO_TARGET_DIR") or os.path.join(root, "target"), "release")
    report = worker_report(os.path.join(binary, "mlb"), os.path.join(binary, "libmlb_torch.so"), name, config, threads,
                           "cpu", pin)
    return report["train_item"]["avg"], report["provenance"]["heap"]


def worker_report(mlb, plugin, name, config, threads, device, pin=()):
    """The report of one instance of workload `name` of `plugin` through
    `mlb worker` on `device` (`cpu`, `cuda:0`), its command prefixed by
    `pin`; exits with the worker's output when it fails."""
    with tempfile.TemporaryDirectory() as outdir:
        cmd = list(pin) + [mlb, "worker", "--plugin", plugin, "--workload", name, "--config", json.dumps(config),
                           "--threads", str(threads), "--device", device, "--outdir", outdir]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"mlb worker failed for {name}:\n{done.stdout}\n{done.stderr}")
        (report,) = [f for f in os.listdir(outdir) if f.endswith(".json")]
        with open(os.path.join(outdir, report)) as f:
            return json.load(f)


def run_python(root, pin, name, args, threads, seed, repeat, number, skip):
    cmd = pin + [sys.executable, os.path.join(root, "bench", "parity", "reference.py"), name, "--config",
                 json.dumps(args), "--threads", str(threads), "--seed", str(seed), "--repeat", str(repeat),
                 "--number", str(number), "--skip", str(skip)]
    return reference_rate(cmd, f"reference.py ({name})")


def reference_rate(cmd, what, env=None):
    """Runs a reference script's command `cmd` (in environment `env`, else
    this one); its items/s."""
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        sys.exit(f"{what} failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])["items_per_sec"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per side and workload (medians)")
    parser.add_argument("--threads", type=int, default=1, help="intra-op threads of both sides")
    parser.add_argument("--cpus", help="CPU list both sides are pinned to (default: the first --threads CPUs)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", nargs="*", help="workloads to run (default: all)")
    opts = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    cpus = opts.cpus or ",".join(str(c) for c in sorted(os.sched_getaffinity(0))[: opts.threads])
    pin = ["taskset", "-c", cpus]

    print(f"threads {opts.threads}, CPUs {cpus}, {opts.runs} runs per side, seed {opts.seed}", file=sys.stderr)
    rows, heaps = [], set()
    for name, args, repeat, number, skip in CASES:
        if opts.only and name not in opts.only:
            continue
        mlb, py = [], []
        for _ in range(opts.runs):
            common = (name, args, opts.threads, opts.seed, repeat, number, skip)
            items_per_sec, heap = run_mlb(root, pin, *common)
            mlb.append(items_per_sec)
            heaps.add(heap)
            py.append(run_python(root, pin, *common))
        m, p = statistics.median(mlb), statistics.median(py)
        paired = statistics.median(a / b for a, b in zip(mlb, py))
        goal = GOALS.get(name, 1.0)
        rows.append((name, json.dumps(args), m, p, m / p, paired, goal))
        print(f"{name}: mlb {mlb} python {py}", file=sys.stderr)

    print("| workload | config | mlb items/s | PyTorch items/s | mlb / PyTorch | paired ratio | goal |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, args, m, p, ratio, paired, goal in rows:
        mark = "" if ratio >= goal else " (missed)"
        print(f"| {name} | `{args}` | {m:,.1f} | {p:,.1f} | {ratio:.2f}{mark} | {paired:.2f} | >= {goal} |")
    print(f"\nmlb worker heap policy: {', '.join(sorted(heaps))} (MLB_HEAP=libc for glibc's defaults)")


if __name__ == "__main__":
    main()
