"""Every workload through `mlb --jobs`: on a GPU the installed suites at
their GPU sizes (`baselines`, `modern`), each config timed over one step
after one warm-up step; on the CPU `modern-smoke`'s tiny configs, and the
GPU's jobs through `--dry-run` (mlb's checks before a run), so that they
cannot rot unseen. Each config must pass, and on a GPU run on it (`cuda`
true, the GPU named in the report)."""
from runner import Failed, Step

SUITES = {"gpu": ["baselines", "modern"], "cpu": ["modern-smoke"]}
TIMING = {"gpu": {"repeat": 2, "number": 1, "skip": 1}, "cpu": None}
# Workloads whose model runs on the CPU whatever the host has (cart: the
# original's `--no-cuda`; docs/workloads.md).
CPU_ONLY = {"cart"}
# The stress workloads of `mlb burn`: the burn step runs them.
STRESS = {"gemm", "membw", "allreduce"}
# Seconds an instance may run before mlb stops it.
INSTANCE_TIMEOUT_S = 120


def run(context, figures):
    failed = []
    if not context.gpu:
        accepted = context.dry_run(jobs_of(context, "gpu"), context.folder("workloads-gpu"))
        figures.set("the GPU's jobs, dry run", "accepted" if accepted else "refused")
        if not accepted:
            failed.append("mlb --jobs --dry-run refused the GPU's jobs")
    jobs = jobs_of(context, context.mode)
    figures.set("suites", ", ".join(SUITES[context.mode]))
    status, reports = context.run_jobs(jobs, context.folder("workloads"), "--timeout", str(INSTANCE_TIMEOUT_S))
    for report in reports:
        plugin = next((j["plugin"] for j in jobs if j["name"] == report["name"]), report["name"])
        problem = judge(report, plugin, context.gpu)
        if problem:
            failed.append(f"{report['name']}: {problem}")
        throughput = (report.get("train_item") or {}).get("avg")
        figures.row("configs", {"job": report["name"], "plugin": plugin, "outcome": problem or "ok",
                                "items/s": throughput, "cuda": report.get("cuda"), "gpu": report.get("gpu")})
    listed, _ = context.mlb_json("plugins", "list", "--format", "json")
    run_plugins = {j["plugin"] for j in jobs}
    figures.set("workloads not in these suites",
                sorted({p["name"] for p in listed if p.get("status") == "ok"} - run_plugins - STRESS))
    missing = sorted({j["name"] for j in jobs} - {r["name"] for r in reports})
    if missing:
        failed.append(f"no report: {', '.join(missing)}")
    if failed or status != 0:
        raise Failed("; ".join([f"mlb --jobs exit status {status}", *failed]))


def jobs_of(context, mode):
    """The jobs of `mode`'s suites with its timing."""
    return [job for suite in SUITES[mode] for job in context.suite(suite, TIMING[mode])]


def judge(report, plugin, gpu):
    """Why `report` fails the step, or None."""
    if not report.get("completed"):
        failure = report.get("failure") or {}
        return f"failed ({failure.get('cause')}: {failure.get('message')})"
    if gpu and plugin not in CPU_ONLY and not (report.get("cuda") and report.get("gpu")):
        return f"not on the GPU (cuda {report.get('cuda')}, gpu {report.get('gpu')})"
    return None


STEP = Step("workloads", "Every workload through `mlb --jobs`", {"gpu": 180, "cpu": 60}, run)
