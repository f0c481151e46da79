#!/usr/bin/env python3
"""The loader plugin against PyTorch's DataLoader + PIL (reference.py) on the
same prepared JPEG tree, same batch size, workers, image size and CPUs
(taskset), runs alternating; prints medians of images/s, their ratio and the
median of the ratios of adjacent runs. Run through run.sh."""
import argparse
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from run import run_mlb  # noqa: E402  (bench/parity/run.py)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("data", help="an ImageNet-style train folder (mlb prepare)")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--image-size", type=int, default=224)
    p.add_argument("--cpus", default="0,1", help="CPUs both sides are pinned to")
    a = p.parse_args()
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
    pin = ["taskset", "-c", a.cpus]
    repeat, number, skip = 8, 2, 2
    args = {"data": a.data, "batch_size": a.batch_size, "workers": a.workers, "image_size": a.image_size}
    mlb, torch = [], []
    for run in range(a.runs):
        mlb.append(run_mlb(root, pin, "loader", args, 1, run, repeat, number, skip)[0])
        cmd = pin + [sys.executable, os.path.join(root, "bench", "parity", "loader", "reference.py"), a.data,
                     "--batch-size", str(a.batch_size), "--workers", str(a.workers), "--image-size",
                     str(a.image_size), "--repeat", str(repeat), "--number", str(number), "--skip", str(skip),
                     "--seed", str(run)]
        done = subprocess.run(cmd, capture_output=True, text=True, check=True)
        torch.append(json.loads(done.stdout.strip().splitlines()[-1])["items_per_sec"])
        print(f"run {run}: mlb {mlb[-1]:.1f} images/s, PyTorch {torch[-1]:.1f} images/s", file=sys.stderr)
    ratio = statistics.median(m / t for m, t in zip(mlb, torch))
    print("| config | mlb images/s | PyTorch images/s | mlb / PyTorch | paired ratio |")
    print("|---|---:|---:|---:|---:|")
    config = f"batch {a.batch_size}, workers {a.workers}, image {a.image_size}, CPUs {a.cpus}, {a.runs} runs"
    m, t = statistics.median(mlb), statistics.median(torch)
    print(f"| {config} | {m:.1f} | {t:.1f} | {m / t:.2f} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
