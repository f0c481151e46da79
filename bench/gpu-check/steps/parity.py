"""Parity with PyTorch eager: each workload of the table through `mlb
worker` and its reference in bench/parity (the same model written in
PyTorch), with the same config, seed, threads, CPUs and steps, timed the
same way (bench/parity/run.py's harness), one run each; the ratio of their
items/s. The goal is at least 1.0. Precisions are those mlb's workloads
have: convnet and wlm in fp32 and fp16 (their `_fp16` variants: half
weights, fp32 master weights, static loss scale), vae in fp32, gpt and vit
in fp32, bf16 and fp16 (autocast)."""
import json
import os

import run as harness  # bench/parity/run.py
from runner import Failed, Step

PARITY = os.path.dirname(os.path.abspath(harness.__file__))

# One case: the workload, its precision, mlb's plugin, the reference
# (script under bench/parity and its workload argument), the config, and
# (repeat, number, skip).
RESNET50 = {"arch": "resnet50", "batch_size": 64}
GPT_124M = {"size": "124m", "seq_len": 1024, "batch_size": 16}
VIT_B16 = {"size": "base", "patch": 16, "image_size": 224, "batch_size": 128}
WLM = {"batch_size": 64, "emsize": 656, "nhid": 656}
CASES_GPU = [
    ("convnet", "fp32", "convnet", ("reference.py", "convnet"), RESNET50, (6, 5, 1)),
    ("convnet", "fp16", "convnet_fp16", ("reference.py", "convnet_fp16"), RESNET50, (6, 5, 1)),
    ("gpt", "fp32", "gpt", ("gpt/reference.py",), dict(GPT_124M, precision="fp32"), (4, 2, 1)),
    ("gpt", "bf16", "gpt", ("gpt/reference.py",), dict(GPT_124M, precision="bf16"), (6, 5, 1)),
    ("gpt", "fp16", "gpt", ("gpt/reference.py",), dict(GPT_124M, precision="fp16"), (6, 5, 1)),
    ("vit", "fp32", "vit", ("vit/reference.py",), dict(VIT_B16, precision="fp32"), (4, 2, 1)),
    ("vit", "bf16", "vit", ("vit/reference.py",), dict(VIT_B16, precision="bf16"), (6, 5, 1)),
    ("vit", "fp16", "vit", ("vit/reference.py",), dict(VIT_B16, precision="fp16"), (6, 5, 1)),
    ("wlm", "fp32", "wlm", ("reference.py", "wlm"), WLM, (6, 5, 1)),
    ("wlm", "fp16", "wlmfp16", ("reference.py", "wlmfp16"), WLM, (6, 5, 1)),
    ("vae", "fp32", "vae", ("reference.py", "vae"), {"batch_size": 128}, (6, 30, 1)),
]
# On the CPU, tiny sizes and each reference path once: fp32, bf16 and fp16
# autocast (with loss scaling), fp16 master weights.
CASES_CPU = [
    ("convnet", "fp32", "convnet", ("reference.py", "convnet"),
     {"arch": "resnet18", "batch_size": 4, "image_size": 32, "classes": 10}, (2, 1, 1)),
    ("gpt", "bf16", "gpt", ("gpt/reference.py",),
     {"size": "tiny", "vocab": 512, "batch_size": 4, "warmup": 2, "precision": "bf16"}, (3, 1, 1)),
    ("vit", "fp16", "vit", ("vit/reference.py",),
     {"size": "tiny", "layers": 2, "image_size": 32, "patch": 8, "classes": 10, "batch_size": 8, "warmup": 2,
      "precision": "fp16"}, (3, 1, 1)),
    ("wlm", "fp16", "wlmfp16", ("reference.py", "wlmfp16"),
     {"batch_size": 4, "emsize": 64, "nhid": 64, "vocab": 1000, "corpus_tokens": 20000}, (3, 1, 1)),
    ("vae", "fp32", "vae", ("reference.py", "vae"), {"batch_size": 16}, (3, 2, 1)),
]
CASES = {"gpu": CASES_GPU, "cpu": CASES_CPU}
SEED = 0
# Lines of a failed command's output kept in the figures (all of it is in the log).
ERROR_LINES = 5


def run(context, figures):
    failed = []
    for workload, precision, plugin, (script, *reference), config, (repeat, number, skip) in CASES[context.mode]:
        row = {"workload": workload, "precision": precision, "mlb plugin": plugin, "config": json.dumps(config)}
        try:
            timing = {"repeat": repeat, "number": number, "skip": skip}
            report = harness.worker_report(context.mlb, context.torch_plugin, plugin, dict(config, seed=SEED, **timing),
                                           context.threads, context.device, context.pin)
            mlb = report["train_item"]["avg"]
            cmd = context.pin + [context.python, os.path.join(PARITY, script), *reference]
            cmd += ["--config", json.dumps(config), "--threads", str(context.threads), "--seed", str(SEED)]
            cmd += ["--device", context.device] + [f"--{k}={v}" for k, v in timing.items()]
            torch = harness.reference_rate(cmd, f"{script} {plugin}")
            row.update({"mlb items/s": mlb, "PyTorch items/s": torch, "mlb / PyTorch": mlb / torch})
        except SystemExit as e:  # the harness exits naming the command that failed
            print(e, flush=True)
            row["error"] = "\n".join(str(e).splitlines()[-ERROR_LINES:])
            failed.append(f"{workload} {precision}")
        figures.row("cases", row)
    if failed:
        raise Failed(f"failed: {', '.join(failed)}")


STEP = Step("parity", "Parity with PyTorch eager", {"gpu": 180, "cpu": 120}, run)
