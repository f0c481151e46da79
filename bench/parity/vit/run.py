#!/usr/bin/env python3
"""Parity benchmark of vit: mlb's (through `mlb worker`) against the same
model in PyTorch eager (vit/reference.py), in fp32 and bf16 on the CPU,
with torch.compile as an extra column for information.

Both sides get the same config, seed, thread count, steps and CPU set;
runs alternate between the sides. Prints a markdown table of medians of
images/s, the ratio of the medians mlb / eager, the median of the ratios
of adjacent runs, and the compiled reference's median. Run through
bench/parity/vit/run.sh.
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from run import reference_rate, run_mlb  # noqa: E402  (bench/parity/run.py)

# A small ViT a CPU trains in seconds: 2 blocks of width 192 over 64 tokens.
CONFIG = {"size": "tiny", "layers": 2, "image_size": 64, "patch": 8, "classes": 100, "batch_size": 16, "warmup": 2}
REPEAT, NUMBER, SKIP = 6, 2, 1


def run_python(pin, args, threads, seed, compiled):
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference.py")
    cmd = pin + [sys.executable, script, "--config", json.dumps(args), "--threads", str(threads), "--seed", str(seed),
                 "--repeat", str(REPEAT), "--number", str(NUMBER), "--skip", str(SKIP)] + (["--compile"] if compiled else [])
    return reference_rate(cmd, "vit/reference.py")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per side and precision (medians)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--cpus", help="CPU list both sides are pinned to (default: the first --threads CPUs)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-compile", action="store_true", help="leave out the torch.compile column")
    opts = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    cpus = opts.cpus or ",".join(str(c) for c in sorted(os.sched_getaffinity(0))[: opts.threads])
    pin = ["taskset", "-c", cpus]
    print(f"threads {opts.threads}, CPUs {cpus}, {opts.runs} runs per side, seed {opts.seed}", file=sys.stderr)
    rows = []
    for precision in ["fp32", "bf16"]:
        args = dict(CONFIG, precision=precision)
        mlb, eager, compiled = [], [], []
        for _ in range(opts.runs):
            mlb.append(run_mlb(root, pin, "vit", args, opts.threads, opts.seed, REPEAT, NUMBER, SKIP)[0])
            eager.append(run_python(pin, args, opts.threads, opts.seed, False))
            if not opts.no_compile:
                compiled.append(run_python(pin, args, opts.threads, opts.seed, True))
        m, e = statistics.median(mlb), statistics.median(eager)
        paired = statistics.median(a / b for a, b in zip(mlb, eager))
        c = statistics.median(compiled) if compiled else None
        rows.append((precision, m, e, m / e, paired, c))
        print(f"vit {precision}: mlb {mlb} eager {eager} compiled {compiled}", file=sys.stderr)
    print(f"vit `{json.dumps(CONFIG)}`\n")
    print("| precision | mlb images/s | PyTorch eager images/s | mlb / eager | paired ratio | torch.compile images/s |")
    print("|---|---:|---:|---:|---:|---:|")
    for precision, m, e, ratio, paired, c in rows:
        compiled = "-" if c is None else f"{c:,.1f}"
        print(f"| {precision} | {m:,.1f} | {e:,.1f} | {ratio:.2f} | {paired:.2f} | {compiled} |")


if __name__ == "__main__":
    main()
