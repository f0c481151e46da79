"""NCCL, on the one GPU (world size 1): mlb's all-reduce timing on
`ProcessGroupNCCL` (the pack's `all_reduce`, examples/all_reduce.rs
`--nccl`) against `torch.distributed.all_reduce` on NCCL
(bench/parity/ddp.py's PyTorch side), median times of float32 tensors of
ddp.py's sizes; then convnet_ddp with `backend: nccl` through `mlb worker`
against PyTorch `DistributedDataParallel` on NCCL (reference.py
convnet_ddp), each a group of one rank started as ddp.py starts its ranks
(torchrun's variables, rank r pinned to CPU r with one thread)."""
import json
import os
import tempfile

import ddp  # bench/parity/ddp.py
from runner import Failed, Step

ITERS = 20
CONVNET = {"arch": "resnet50", "batch_size": 64, "backend": "nccl"}
REPEAT, NUMBER, SKIP = 6, 5, 1
THREADS = "1"


def run(context, figures):
    if not context.all_reduce or not os.path.exists(context.all_reduce):
        raise Failed(f"mlb's all-reduce timing is missing: {context.all_reduce}")
    sizes = [str(mb) for mb in ddp.SIZES_MB]
    mlb = ddp.all_reduce_times([context.all_reduce, "--nccl", "--iters", str(ITERS), *sizes], 1)
    torch = ddp.all_reduce_times([context.python, ddp.__file__, "--py-all-reduce", "--backend", "nccl",
                                  "--iters", str(ITERS)], 1)
    for mb in ddp.SIZES_MB:
        figures.row("all-reduce, 1 rank", {"MB": mb, "mlb ms": mlb[mb] * 1e3, "torch.distributed ms": torch[mb] * 1e3,
                                           "mlb / PyTorch (speed)": torch[mb] / mlb[mb]})
    with tempfile.TemporaryDirectory() as outdir:
        config = dict(CONVNET, repeat=REPEAT, number=NUMBER, skip=SKIP)
        ddp.group([[context.mlb, "worker", "--plugin", context.torch_plugin, "--workload", "convnet_ddp",
                    "--config", json.dumps(config), "--threads", THREADS, "--device", context.device,
                    "--outdir", outdir]])
        (name,) = [f for f in os.listdir(outdir) if f.endswith(".json")]
        with open(os.path.join(outdir, name)) as f:
            report = json.load(f)
    reference = os.path.join(os.path.dirname(ddp.__file__), "reference.py")
    timing = ["--repeat", str(REPEAT), "--number", str(NUMBER), "--skip", str(SKIP)]
    (out,) = ddp.group([[context.python, reference, "convnet_ddp", "--config", json.dumps(CONVNET), "--threads", THREADS,
                         *timing, "--device", context.device]])
    torch_items = json.loads(out.strip().splitlines()[-1])["items_per_sec"]
    mlb_items = report["train_item"]["avg"]
    backend = (report.get("ddp") or {}).get("backend")
    figures.row("convnet_ddp, 1 rank", {"config": json.dumps(CONVNET), "mlb backend": backend, "mlb items/s": mlb_items,
                                        "PyTorch DDP items/s": torch_items, "mlb / PyTorch": mlb_items / torch_items})
    if backend != "nccl":
        raise Failed(f"mlb's convnet_ddp ran on {backend}, not NCCL")


STEP = Step("nccl", "NCCL: all-reduce and data parallel", {"gpu": 40}, run, gpu_only=True)
