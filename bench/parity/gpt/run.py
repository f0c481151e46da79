#!/usr/bin/env python3
"""Parity benchmark of `gpt`: mlb's workload (through `mlb worker`) against
the same model in PyTorch eager (reference.py here), fp32 and bf16 on the
CPU, with the first wave's harness (../run.py: same sizes, seed, threads,
steps and CPU set on both sides, runs alternating, medians), and
`torch.compile` of the reference as a column for information. Then the
FLOPs check: mlb's `flops_per_item` (the PaLM formula) against PyTorch's
`FlopCounterMode` count of one training step; exits 1 when they differ by
more than 5%. Run through run.sh here, which sets up the environment and
builds the plugins.

The reference runs PyTorch's fastest standard eager path (`REFERENCE_PATH`:
fused AdamW, `unbind`/`chunk`, `_foreach_norm`) under the heap settings
mlb's worker gives itself (`harness.SAME_HEAP`), stated in the table.
`--shapes` picks the shapes (`SHAPES`), `--precisions` the precisions.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import run as harness  # noqa: E402  (bench/parity/run.py)

# The shapes by name: workload arguments, repeat, number, skip.
SHAPES = {
    "base": ({"layers": 4, "heads": 4, "width": 256, "seq_len": 256, "batch_size": 4, "vocab": 8192}, 5, 1, 1),
    "wide": ({"layers": 2, "heads": 8, "width": 512, "seq_len": 128, "batch_size": 4, "vocab": 32768}, 5, 1, 1),
    "tiny": ({"size": "tiny", "seq_len": 64, "batch_size": 8, "vocab": 8192}, 6, 4, 1),
}
PRECISIONS = ["fp32", "bf16"]
REFERENCE_PATH = "fused AdamW, unbind/chunk, _foreach_norm, gradients set to None"
# The ratio mlb / eager each row should reach.
GOAL = 1.05
FLOPS_TOLERANCE = 0.05
REFERENCE = os.path.join(HERE, "reference.py")


def reference(pin, args, threads, seed, repeat, number, skip, *extra):
    cmd = pin + [sys.executable, REFERENCE, "--config", json.dumps(args), "--threads", str(threads), "--seed", str(seed),
                 "--repeat", str(repeat), "--number", str(number), "--skip", str(skip), *extra]
    done = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, **harness.SAME_HEAP))
    if done.returncode != 0:
        sys.exit(f"reference.py failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def mlb_report(root, args):
    """mlb's report of one short gpt run (for its flops_per_item)."""
    binary = os.path.join(os.environ.get("CARGO_TARGET_DIR") or os.path.join(root, "target"), "release")
    return harness.worker_report(os.path.join(binary, "mlb"), os.path.join(binary, "libmlb_torch.so"), "gpt",
                                 dict(args, repeat=2, number=1, skip=1), 1, "cpu")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per side and case (medians)")
    parser.add_argument("--threads", type=int, default=1, help="intra-op threads of both sides")
    parser.add_argument("--cpus", help="CPU list both sides are pinned to (default: the first --threads CPUs)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-compile", action="store_true", help="leave out the torch.compile column")
    parser.add_argument("--shapes", nargs="+", choices=SHAPES, default=["base"], help="shapes to run (SHAPES)")
    parser.add_argument("--precisions", nargs="+", choices=PRECISIONS, default=PRECISIONS)
    parser.add_argument("--no-flops", action="store_true", help="leave out the FLOPs check")
    opts = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
    cpus = opts.cpus or ",".join(str(c) for c in sorted(os.sched_getaffinity(0))[: opts.threads])
    pin = ["taskset", "-c", cpus]
    print(f"threads {opts.threads}, CPUs {cpus}, {opts.runs} runs per side, seed {opts.seed}", file=sys.stderr)

    heap = " ".join(f"{k}={v}" for k, v in harness.SAME_HEAP.items())
    print(f"reference: {REFERENCE_PATH}; its heap: {heap} (mlb's worker: keep-freed, the same thresholds)")
    cases = [(shape, p) for shape in opts.shapes for p in opts.precisions]
    failed = False
    for shape in opts.shapes:
        rows = []
        base, repeat, number, skip = SHAPES[shape]
        for name in opts.precisions:
            args = dict(base, precision=name)
            mlb, py, compiled = [], [], []
            for _ in range(opts.runs):
                items, _heap = harness.run_mlb(root, pin, "gpt", args, opts.threads, opts.seed, repeat, number, skip)
                mlb.append(items * args["seq_len"])
                py.append(reference(pin, args, opts.threads, opts.seed, repeat, number, skip)["tokens_per_sec"])
                if not opts.no_compile:
                    out = reference(pin, args, opts.threads, opts.seed, repeat, number, skip, "--compile")
                    compiled.append(out["tokens_per_sec"])
            m, p = statistics.median(mlb), statistics.median(py)
            paired = statistics.median(a / b for a, b in zip(mlb, py))
            c = statistics.median(compiled) if compiled else float("nan")
            rows.append((name, m, p, m / p, paired, c, m / c if compiled else float("nan")))
            print(f"{shape} {name}: mlb {mlb} eager {py} compiled {compiled}", file=sys.stderr)

        print()
        print(f"gpt {shape} `{json.dumps(base)}`, tokens/s, medians of {opts.runs} alternating runs")
        print()
        print("| precision | mlb | PyTorch eager | mlb / eager | paired ratio | torch.compile | mlb / compile |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name, m, p, ratio, paired, c, rc in rows:
            mark = "" if ratio >= GOAL else f" (under {GOAL})"
            print(f"| {name} | {m:,.0f} | {p:,.0f} | {ratio:.2f}{mark} | {paired:.2f} | {c:,.0f} | {rc:.2f} |")

    if opts.no_flops:
        return
    print()
    print("| shape, precision | mlb flops_per_item | FlopCounterMode per item | mlb / counted |")
    print("|---|---:|---:|---:|")
    for shape, name in cases:
        args = dict(SHAPES[shape][0], precision=name)
        ours = mlb_report(root, args)["flops_per_item"]
        counted = reference(pin, args, opts.threads, opts.seed, 1, 1, 0, "--flops")["flops_per_item"]
        ratio = ours / counted
        failed |= abs(ratio - 1.0) > FLOPS_TOLERANCE
        print(f"| {shape}, {name} | {ours:,.0f} | {counted:,.0f} | {ratio:.4f} |")
    if failed:
        sys.exit(f"flops_per_item differs from the counted FLOPs by more than {FLOPS_TOLERANCE:.0%}")


if __name__ == "__main__":
    main()
