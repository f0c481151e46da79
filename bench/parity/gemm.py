#!/usr/bin/env python3
"""Parity of mlb's `gemm` stress workload (mlb burn) with a matmul loop in
PyTorch: both sides multiply two SIZE x SIZE matrices of the same precision
on the same CPUs (taskset) with the same intra-op threads, in steps of a
fixed time, and report the median TFLOPS of the steps after the first. Runs
alternate between the sides; the medians of the runs and their ratio are
printed as a markdown table. Run through gemm.sh here (environment, build).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

# The PyTorch side: argv[1] is [size, precision, steps, step_seconds,
# threads, device]; prints the median TFLOPS of the steps after the first.
# Each product is waited for, as mlb's gemm waits for the device after each.
PYTHON_SIDE = r"""
import json, statistics, sys, time, torch
size, precision, steps, step_seconds, threads, device = json.loads(sys.argv[1])
torch.set_num_threads(threads)
kind = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[precision]
a = torch.randn(size, size, device=device).to(kind)
b = torch.randn(size, size, device=device).to(kind)
wait = torch.cuda.synchronize if a.is_cuda else (lambda: None)
torch.matmul(a, b)
wait()
rates = []
for _ in range(steps):
    start, units = time.perf_counter(), 0
    while True:
        torch.matmul(a, b)
        wait()
        units += 1
        if time.perf_counter() - start >= step_seconds:
            break
    rates.append(units / (time.perf_counter() - start))
print(statistics.median(rates[1:]) * 2 * size**3 / 1e12)
"""


def target_dir(root):
    return os.environ.get("CARGO_TARGET_DIR") or os.path.join(root, "target")


def run_mlb(opts, pin, outdir):
    config = {"precision": opts.precision, "size": opts.size, "repeat": opts.steps, "number": 1, "skip": 1,
              "step_seconds": opts.step_seconds}
    cmd = pin + [opts.mlb, "worker", "--plugin", opts.plugin, "--workload", "gemm", "--config", json.dumps(config),
                 "--threads", str(opts.threads), "--device", "cpu", "--outdir", outdir]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"mlb worker failed:\n{done.stdout}\n{done.stderr}")
    (name,) = [f for f in os.listdir(outdir) if f.endswith(".json")]
    with open(os.path.join(outdir, name)) as f:
        report = json.load(f)
    os.remove(os.path.join(outdir, name))
    return report["tflops"]


def run_python(opts, pin):
    settings = json.dumps([opts.size, opts.precision, opts.steps, opts.step_seconds, opts.threads, "cpu"])
    done = subprocess.run(pin + [sys.executable, "-c", PYTHON_SIDE, settings], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"the PyTorch side failed:\n{done.stderr}")
    return float(done.stdout.strip())


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    release = os.path.join(target_dir(root), "release")
    debug_mlb = os.path.join(target_dir(root), "debug", "mlb")
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5, help="runs per side")
    parser.add_argument("--threads", type=int, default=1, help="intra-op threads of both sides")
    parser.add_argument("--cpus", help="CPU list both sides are pinned to (default: the first --threads CPUs)")
    parser.add_argument("--precision", default="fp32", choices=["fp32", "bf16", "fp16"])
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=6, help="steps of a run (the first is the warm-up)")
    parser.add_argument("--step-seconds", type=float, default=1.0)
    parser.add_argument("--mlb", default=os.path.join(release, "mlb") if os.path.exists(os.path.join(release, "mlb")) else debug_mlb,
                        help="the mlb binary (its worker only times the steps: a debug build measures the same)")
    parser.add_argument("--plugin", default=os.path.join(release, "libmlb_torch.so"))
    opts = parser.parse_args()
    cpus = opts.cpus or ",".join(str(c) for c in sorted(os.sched_getaffinity(0))[: opts.threads])
    pin = ["taskset", "-c", cpus]
    print(f"gemm {opts.precision} {opts.size}x{opts.size}, threads {opts.threads}, CPUs {cpus}, "
          f"{opts.runs} runs per side of {opts.steps} x {opts.step_seconds} s", file=sys.stderr)
    mlb, python = [], []
    with tempfile.TemporaryDirectory() as outdir:
        for run in range(opts.runs):
            mlb.append(run_mlb(opts, pin, outdir))
            python.append(run_python(opts, pin))
            print(f"run {run + 1}: mlb {mlb[-1]:.4f} TFLOPS, PyTorch {python[-1]:.4f} TFLOPS", file=sys.stderr)
    m, p = statistics.median(mlb), statistics.median(python)
    print("| workload | precision | mlb TFLOPS (median) | PyTorch TFLOPS (median) | mlb / PyTorch |")
    print("|---|---|---|---|---|")
    print(f"| gemm {opts.size} | {opts.precision} | {m:.4f} | {p:.4f} | {m / p:.3f} |")


if __name__ == "__main__":
    main()
