"""NVML telemetry: a short `gpt_124m` run of the installed `modern` suite
through `mlb --jobs`, sampled at 20 Hz. Its report's telemetry block must
come from NVML and hold the GPU's samples (utilization, power, clocks,
temperature, memory, energy), and the run's `system.json` must name the
GPU, its driver and CUDA's version (docs/telemetry.md)."""
import json
import os

from runner import Failed, Step

TIMING = {"repeat": 4, "number": 5, "skip": 1}
GAUGES = ("utilization_percent", "power_w", "sm_clock_mhz", "temperature_c", "memory_used_bytes")
SYSTEM = ("accelerator_model_name", "accelerator_driver_version", "cuda_or_rocm_version")


def run(context, figures):
    folder = context.folder("telemetry")
    status, reports = context.run_jobs(context.suite("modern", TIMING, names=["gpt_124m"]), folder, "--sample-hz", "20")
    if status != 0 or len(reports) != 1:
        raise Failed(f"mlb --jobs exit status {status}, {len(reports)} reports")
    telemetry = reports[0].get("telemetry") or {}
    source = (telemetry.get("sources") or {}).get("gpu")
    figures.set("GPU source", source)
    figures.set("samples", telemetry.get("samples"))
    missing = []
    gpus = telemetry.get("gpus") or []
    for gpu in gpus:
        stats = gpu.get("stats") or {}
        for gauge in GAUGES:
            mean = (stats.get(gauge) or {}).get("mean")
            figures.row("GPU gauges (means over the window)", {"device": gpu.get("device"), "name": gpu.get("name"),
                                                                "gauge": gauge, "mean": mean})
            if mean is None:
                missing.append(gauge)
        figures.set(f"GPU {gpu.get('device')} throttled fraction", gpu.get("throttled_fraction"))
    figures.set("energy", telemetry.get("energy"))
    with open(os.path.join(folder, "reports", "system.json")) as f:
        system = json.load(f)
    for key in SYSTEM:
        figures.set(key, system.get(key))
        if not system.get(key):
            missing.append(f"system.json {key}")
    if not (source or "").startswith("nvml") or not gpus or missing:
        raise Failed(f"GPU telemetry from {source!r}, {len(gpus)} GPUs; missing: {', '.join(missing) or 'none'}")


STEP = Step("telemetry", "NVML telemetry and system.json", {"gpu": 30}, run, gpu_only=True)
