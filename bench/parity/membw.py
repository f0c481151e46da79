#!/usr/bin/env python3
"""PyTorch reference of mlb's `membw` stress workload (mlb burn): the STREAM
copy (`b = a`, two float32 arrays moved) and triad (`a = b + 3 c`, three
moved) of arrays of `--elements`, each waited for and timed, repeated for
`--step-seconds` per step, as plugins/mlb-torch/src/workloads/stress/membw.rs
does. `--elements 0` takes membw's default: 2^28 on a GPU (three arrays
of 1 GiB), 2^24 on the CPU. Prints one JSON object: the medians of the
steps after the first, in 10^9 bytes per second, and the arrays' length,
{"copy_gbs", "triad_gbs", "elements"}.

    membw.py --elements 268435456 --steps 6 --step-seconds 1 --threads 1 --device cuda:0
"""
import argparse
import json
import statistics
import time

import torch


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, required=True, help="float32 elements per array (0: membw's default)")
    parser.add_argument("--steps", type=int, required=True, help="steps (the first is the warm-up)")
    parser.add_argument("--step-seconds", type=float, default=1.0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", default="cpu", help="cpu or cuda:N")
    opts = parser.parse_args()
    if opts.steps < 2:
        parser.error("steps must be at least 2 (the first is the warm-up)")
    torch.set_num_threads(opts.threads)
    device = torch.device(opts.device)
    elements = opts.elements or (1 << 28 if device.type == "cuda" else 1 << 24)
    a, b, c = (torch.rand(elements, device=device) for _ in range(3))
    three = torch.full((), 3.0, device=device)
    wait = torch.cuda.synchronize if a.is_cuda else (lambda: None)

    def timed(kernel):
        start = time.perf_counter()
        kernel()
        wait()
        return time.perf_counter() - start

    array_bytes = 4.0 * elements
    copy, triad = [], []
    for _ in range(opts.steps):
        units, copied, added = 0, 0.0, 0.0
        start = time.perf_counter()
        while True:
            copied += timed(lambda: b.copy_(a))
            added += timed(lambda: torch.addcmul(b, c, three, out=a))
            units += 1
            if time.perf_counter() - start >= opts.step_seconds:
                break
        copy.append(2 * array_bytes * units / copied / 1e9)
        triad.append(3 * array_bytes * units / added / 1e9)
    print(json.dumps({"elements": elements, "copy_gbs": statistics.median(copy[1:]),
                      "triad_gbs": statistics.median(triad[1:])}))

if __name__ == "__main__":
    main()
