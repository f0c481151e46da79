"""The MFU of `gpt 124m` in bf16 as mlb's report computes it
(crates/judge/src/report/mfu.rs): the `gpt_124m` job of the installed suite
(`modern` on a GPU: sequences of 1024, batch 16, 45 timed steps after 5;
`modern-smoke`'s tiny one on the CPU, and `modern`'s through `--dry-run`)
through `mlb --jobs`, then `mlb report --format json`'s MFU row: achieved
TFLOPS (items/s x the report's `flops_per_item`) over the peak of the GPU's
model in bf16 from mlb's peak table (on a CPU, the matrix product probe's)."""
from runner import Failed, Step

SUITE = {"gpu": "modern", "cpu": "modern-smoke"}
JOB = "gpt_124m"


def run(context, figures):
    if not context.gpu and not context.dry_run(context.suite(SUITE["gpu"], names=[JOB]), context.folder("mfu-gpu")):
        raise Failed(f"mlb --jobs --dry-run refused {SUITE['gpu']}'s {JOB}")
    folder = context.folder("mfu")
    status, reports = context.run_jobs(context.suite(SUITE[context.mode], names=[JOB]), folder)
    if status != 0 or not reports:
        raise Failed(f"mlb --jobs exit status {status}, {len(reports)} reports")
    (report,) = reports
    figures.set("job", f"{JOB} of {SUITE[context.mode]}: size {report.get('size')}, seq_len {report.get('seq_len')}, "
                       f"batch {report.get('batch_size')}, {report.get('precision')}")
    figures.set("tokens/s", report["train_item"]["avg"] * report["seq_len"])
    summary, _ = context.mlb_json("report", "--reports", folder + "/reports", "--format", "json")
    rows = summary.get("mfu", {}).get("rows", [])
    if not rows:
        raise Failed("mlb report gave no MFU row")
    (row,) = rows
    figures.set("achieved TFLOPS", (row.get("achieved_tflops") or {}).get("mean"))
    figures.set("peak TFLOPS", row.get("peak_tflops"))
    figures.set("peak of", row.get("peak_of"))
    mfu = (row.get("mfu") or {}).get("mean")
    figures.set("MFU", mfu)
    if mfu is None:
        raise Failed(f"no MFU: no peak for {report.get('gpu') or 'this CPU'} in {row.get('precision')}")


STEP = Step("mfu", "MFU of gpt 124m, bf16", {"gpu": 40, "cpu": 30}, run)
