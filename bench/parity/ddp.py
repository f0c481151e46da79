#!/usr/bin/env python3
"""Data parallel benchmark: mlb's c10d path against torch.distributed, 2 ranks on this machine.

1. All-reduce of a float32 tensor of 1, 25 and 100 MB: mlb's Gloo process
   group (plugins/mlb-torch/examples/all_reduce.rs) against
   torch.distributed.all_reduce with the Gloo backend. Median time of
   `--iters` all-reduces after two untimed ones, per run; bandwidth = size /
   time.
2. convnet_ddp resnet18 (through `mlb worker`, one per rank) against PyTorch
   DistributedDataParallel (reference.py convnet_ddp): items/s of the group,
   the sum of its ranks'.

Rank r is pinned to CPU r (taskset) with 1 intra-op thread on both sides, as
mlb's launcher gives each slot its CPUs; runs alternate between the sides.
Prints markdown tables of medians over `--runs` runs and the ratios mlb /
PyTorch. Run through bench/parity/ddp.sh, which builds what it needs.
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

SIZES_MB = [1, 25, 100]
CONVNET = {"arch": "resnet18", "batch_size": 8}
REPEAT, NUMBER, SKIP = 4, 2, 1


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def group(cmds):
    """Runs one command per rank (torchrun's variables set), pinned to CPU
    rank; returns their stdout, failing on any error."""
    port = free_port()
    procs = []
    for rank, cmd in enumerate(cmds):
        env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                   WORLD_SIZE=str(len(cmds)), LOCAL_RANK=str(rank))
        procs.append(subprocess.Popen(["taskset", "-c", str(rank)] + cmd, env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    outs = []
    for p in procs:
        out, err = p.communicate()
        if p.returncode != 0:
            sys.exit(f"{' '.join(p.args)} failed:\n{out}\n{err}")
        outs.append(out)
    return outs


def py_all_reduce(sizes, iters, backend="gloo"):
    """torch.distributed's side of the all-reduce timing (one rank): Gloo on
    CPU tensors, or NCCL on the GPU of the rank's `LOCAL_RANK`, waited for
    after each all-reduce as mlb's `examples/all_reduce.rs --nccl` does."""
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    device = torch.device("cuda", int(os.environ["LOCAL_RANK"])) if backend == "nccl" else torch.device("cpu")
    dist.init_process_group(backend, device_id=device if device.type == "cuda" else None)
    wait = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    for mb in sizes:
        t = torch.ones(int(mb * 1e6 / 4), device=device)
        times = []
        for i in range(iters + 2):
            dist.barrier()
            start = time.perf_counter()
            dist.all_reduce(t)
            wait()
            if i >= 2:
                times.append(time.perf_counter() - start)
        times.sort()
        if dist.get_rank() == 0:
            print(json.dumps({"mb": mb, "iters": iters, "median_s": times[len(times) // 2]}))
    dist.destroy_process_group()


def all_reduce_times(cmd, ranks=2):
    """{MB: median seconds} of an all-reduce timing `cmd` run as `ranks` ranks."""
    out = group([cmd] * ranks)[0]
    return {json.loads(line)["mb"]: json.loads(line)["median_s"] for line in out.splitlines() if line.startswith("{")}


def mlb_convnet(release, seed):
    with tempfile.TemporaryDirectory() as outdir:
        cmds = []
        for rank in range(2):
            config = dict(CONVNET, repeat=REPEAT, number=NUMBER, skip=SKIP, seed=seed)
            cmds.append([os.path.join(release, "mlb"), "worker", "--plugin",
                         os.path.join(release, "libmlb_torch.so"), "--workload", "convnet_ddp",
                         "--config", json.dumps(config),
                         "--threads", "1", "--device", "cpu", "--outdir", os.path.join(outdir, str(rank))])
        group(cmds)
        total = 0.0
        for rank in range(2):
            (report,) = os.listdir(os.path.join(outdir, str(rank)))
            with open(os.path.join(outdir, str(rank), report)) as f:
                total += json.load(f)["train_item"]["avg"]
        return total


def py_convnet(root, seed):
    cmd = [sys.executable, os.path.join(root, "bench", "parity", "reference.py"), "convnet_ddp", "--config",
           json.dumps(CONVNET), "--threads", "1", "--seed", str(seed), "--repeat", str(REPEAT), "--number",
           str(NUMBER), "--skip", str(SKIP)]
    return sum(json.loads(out.strip().splitlines()[-1])["items_per_sec"] for out in group([cmd, cmd]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per side (medians)")
    parser.add_argument("--iters", type=int, default=10, help="timed all-reduces per size and run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--py-all-reduce", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--backend", default="gloo", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.py_all_reduce:
        return py_all_reduce(SIZES_MB, opts.iters, opts.backend)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    release = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target")), "release")
    mlb_cmd = [os.path.join(release, "examples", "all_reduce"), "--iters", str(opts.iters)] + [str(s) for s in SIZES_MB]
    py_cmd = [sys.executable, os.path.abspath(__file__), "--py-all-reduce", "--iters", str(opts.iters)]

    mlb_t, py_t = {s: [] for s in SIZES_MB}, {s: [] for s in SIZES_MB}
    mlb_items, py_items = [], []
    for run in range(opts.runs):
        for side, cmd in ((mlb_t, mlb_cmd), (py_t, py_cmd)):
            for mb, t in all_reduce_times(cmd).items():
                side[mb].append(t)
        mlb_items.append(mlb_convnet(release, opts.seed))
        py_items.append(py_convnet(root, opts.seed))
        print(f"run {run}: mlb {mlb_items[-1]:.2f} items/s, PyTorch {py_items[-1]:.2f} items/s", file=sys.stderr)

    print(f"2 ranks, rank r pinned to CPU r, 1 thread each, {opts.runs} runs per side, {opts.iters} all-reduces per run")
    print()
    print("| all-reduce | mlb MB/s | torch.distributed MB/s | mlb / PyTorch | paired ratio |")
    print("|---|---:|---:|---:|---:|")
    for mb in SIZES_MB:
        m, p = statistics.median(mlb_t[mb]), statistics.median(py_t[mb])
        paired = statistics.median(b / a for a, b in zip(mlb_t[mb], py_t[mb]))
        print(f"| {mb} MB | {mb / m:,.0f} | {mb / p:,.0f} | {p / m:.2f} | {paired:.2f} |")
    print()
    m, p = statistics.median(mlb_items), statistics.median(py_items)
    paired = statistics.median(a / b for a, b in zip(mlb_items, py_items))
    print("| workload | config | mlb items/s | PyTorch DDP items/s | mlb / PyTorch | paired ratio |")
    print("|---|---|---:|---:|---:|---:|")
    print(f"| convnet_ddp, 2 ranks | `{json.dumps(CONVNET)}` | {m:,.2f} | {p:,.2f} | {m / p:.2f} | {paired:.2f} |")


if __name__ == "__main__":
    main()
