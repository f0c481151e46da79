"""`mlb burn` and its two stress workloads against PyTorch: the burn's
verdict (gemm in bf16 then membw on every slot, `--no-collectives`: the
NCCL step measures the collectives), then the same products (gemm's side,
bf16) in a `torch.matmul` loop (bench/parity/gemm.py's PyTorch side) and the
same copy and triad loops (bench/parity/membw.py), each waited for after
every unit, given as many steps of the same length as the burn's and run on
the CPUs and threads the burn's instance had; the ratios of mlb's figures
to PyTorch's (medians of the steps after the first). The step fails when
the burn's verdict does."""
import json
import os
import shutil
import subprocess

import gemm  # bench/parity/gemm.py
from runner import Failed, Step

DURATION_S = {"gpu": 6, "cpu": 2}
PRECISION = "bf16"


def run(context, figures):
    folder = os.path.join(context.folder("burn"), "reports")
    status = subprocess.run([context.mlb, "burn", "--duration", str(DURATION_S[context.mode]), "--precision", PRECISION,
                             "--no-collectives", "--outdir", folder, *context.cgroup_options]).returncode
    with open(os.path.join(folder, "burn.json")) as f:
        verdict = json.load(f)
    failed = verdict.get("failed") or []
    figures.set("verdict", "pass" if status == 0 and not failed else f"FAIL (exit status {status})")
    for check in verdict.get("verdicts", []):
        slot = "/".join(str(v) for v in (check.get("slot") or {}).values())
        fields = {k: check.get(k) for k in ("check", "outcome", "value", "bound", "reason")}
        figures.row("checks", {"slot": slot, **fields})
    by_plugin = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json") and name not in ("burn.json", "system.json", "doctor.json"):
            with open(os.path.join(folder, name)) as f:
                report = json.load(f)
            by_plugin.setdefault(report.get("name"), report)
    compare_gemm(context, figures, by_plugin.get("gemm"))
    compare_membw(context, figures, by_plugin.get("membw"))
    if status != 0 or failed:
        raise Failed(f"mlb burn exit status {status}; failed slots: {failed}")


def compare_gemm(context, figures, report):
    if report is None:
        raise Failed("the burn left no gemm report")
    pin, threads = same_slot(report)
    settings = [report["side"], PRECISION, report["repeat"], report["step_seconds"], threads, context.device]
    torch = float(python(context, pin, ["-c", gemm.PYTHON_SIDE, json.dumps(settings)]))
    mlb = report["tflops"]
    figures.row("mlb against PyTorch", {"figure": f"gemm {PRECISION} {report['side']}x{report['side']} TFLOPS",
                                        "mlb": mlb, "PyTorch": torch, "mlb / PyTorch": mlb / torch})


def compare_membw(context, figures, report):
    if report is None:
        raise Failed("the burn left no membw report")
    script = os.path.join(os.path.dirname(os.path.abspath(gemm.__file__)), "membw.py")
    pin, threads = same_slot(report)
    torch = json.loads(python(context, pin, [script, "--elements", str(report["elements"]), "--steps",
                                             str(report["repeat"]), "--step-seconds", str(report["step_seconds"]),
                                             "--threads", str(threads), "--device", context.device]))
    for kernel in ("copy", "triad"):
        mlb = report[f"{kernel}_gbs"]
        figures.row("mlb against PyTorch", {"figure": f"membw {kernel} of {torch['elements']} float32, GB/s",
                                            "mlb": mlb, "PyTorch": torch[f"{kernel}_gbs"],
                                            "mlb / PyTorch": mlb / torch[f"{kernel}_gbs"]})


def same_slot(report):
    """The pinning (`taskset`) and intra-op threads of the burn's instance
    of `report`, as its provenance gives them."""
    seen = report.get("provenance") or {}
    pin = ["taskset", "-c", seen["cpus"]] if seen.get("cpus") and shutil.which("taskset") else []
    return pin, seen.get("threads") or 1


def python(context, pin, args):
    """The last line `python ARGS` prints, run under `pin`."""
    done = subprocess.run(pin + [context.python, *args], stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise Failed(f"the PyTorch side exited with status {done.returncode}")
    return done.stdout.strip().splitlines()[-1]


STEP = Step("burn", "`mlb burn`, gemm and membw against PyTorch", {"gpu": 60, "cpu": 45}, run)
