#!/usr/bin/env python3
"""Parity benchmark of vit: mlb's (through `mlb worker`) against the same
model in PyTorch eager (vit/reference.py), in fp32 and bf16 on the CPU,
with torch.compile as an extra column for information.

Both sides get the same config, seed, thread count, steps and CPU set;
runs alternate between the sides. Prints a markdown table of medians of
images/s, the ratio of the medians mlb / eager, the median of the ratios
of adjacent runs, and the compiled reference's median. Run through
bench/parity/vit/run.sh.

The reference runs PyTorch's fastest standard eager path (`REFERENCE_PATH`:
fused AdamW, `unbind`, `_foreach_norm`) under the heap settings mlb's
worker gives itself (`SAME_HEAP`), stated in the table. `--shapes` picks
the shapes (`SHAPES`), `--precisions` the precisions.
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from run import SAME_HEAP, reference_rate, run_mlb  # noqa: E402  (bench/parity/run.py)

# The shapes by name. tiny: a small ViT a CPU trains in seconds, 2 blocks of
# width 192 over 64 patches; small6: 6 blocks of ViT-S's width 384 over 49
# patches of a 112-pixel image.
SHAPES = {
    "tiny": {"size": "tiny", "layers": 2, "image_size": 64, "patch": 8, "classes": 100, "batch_size": 16, "warmup": 2},
    "small6": {"size": "small", "layers": 6, "image_size": 112, "patch": 16, "classes": 100, "batch_size": 16,
               "warmup": 2},
}
PRECISIONS = ["fp32", "bf16"]
REPEAT, NUMBER, SKIP = 6, 2, 1
REFERENCE_PATH = "fused AdamW, unbind, _foreach_norm, gradients set to None"
# The ratio mlb / eager each row should reach.
GOAL = 1.05


def run_python(pin, args, threads, seed, compiled, last_block="all"):
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference.py")
    cmd = pin + [sys.executable, script, "--config", json.dumps(args), "--threads", str(threads), "--seed", str(seed),
                 "--repeat", str(REPEAT), "--number", str(NUMBER), "--skip", str(SKIP), "--last-block", last_block]
    cmd += ["--compile"] if compiled else []
    return reference_rate(cmd, "vit/reference.py", dict(os.environ, **SAME_HEAP))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per side and precision (medians)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--cpus", help="CPU list both sides are pinned to (default: the first --threads CPUs)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-compile", action="store_true", help="leave out the torch.compile column")
    parser.add_argument("--shapes", nargs="+", choices=SHAPES, default=["tiny"], help="shapes to run (SHAPES)")
    parser.add_argument("--precisions", nargs="+", choices=PRECISIONS, default=PRECISIONS)
    parser.add_argument("--last-block", choices=["all", "class"], default="all",
                        help="the reference's last block: over every token (timm's) or the class token alone (mlb's)")
    opts = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    cpus = opts.cpus or ",".join(str(c) for c in sorted(os.sched_getaffinity(0))[: opts.threads])
    pin = ["taskset", "-c", cpus]
    print(f"threads {opts.threads}, CPUs {cpus}, {opts.runs} runs per side, seed {opts.seed}", file=sys.stderr)
    heap = " ".join(f"{k}={v}" for k, v in SAME_HEAP.items())
    last = {"all": "its last block over every token (timm's)", "class": "its last block of the class token alone (mlb's)"}
    print(f"reference: {REFERENCE_PATH}, {last[opts.last_block]}; its heap: {heap} (mlb's worker: keep-freed, the same thresholds)")
    for shape in opts.shapes:
        rows = []
        for precision in opts.precisions:
            args = dict(SHAPES[shape], precision=precision)
            mlb, eager, compiled = [], [], []
            for _ in range(opts.runs):
                mlb.append(run_mlb(root, pin, "vit", args, opts.threads, opts.seed, REPEAT, NUMBER, SKIP)[0])
                eager.append(run_python(pin, args, opts.threads, opts.seed, False, opts.last_block))
                if not opts.no_compile:
                    compiled.append(run_python(pin, args, opts.threads, opts.seed, True, opts.last_block))
            m, e = statistics.median(mlb), statistics.median(eager)
            paired = statistics.median(a / b for a, b in zip(mlb, eager))
            c = statistics.median(compiled) if compiled else None
            rows.append((precision, m, e, m / e, paired, c))
            print(f"vit {shape} {precision}: mlb {mlb} eager {eager} compiled {compiled}", file=sys.stderr)
        print(f"\nvit {shape} `{json.dumps(SHAPES[shape])}`, medians of {opts.runs} alternating runs\n")
        print("| precision | mlb images/s | PyTorch eager images/s | mlb / eager | paired ratio | torch.compile images/s |")
        print("|---|---:|---:|---:|---:|---:|")
        for precision, m, e, ratio, paired, c in rows:
            compiled = "-" if c is None else f"{c:,.1f}"
            mark = "" if ratio >= GOAL else f" (under {GOAL})"
            print(f"| {precision} | {m:,.1f} | {e:,.1f} | {ratio:.2f}{mark} | {paired:.2f} | {compiled} |")


if __name__ == "__main__":
    main()
