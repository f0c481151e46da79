"""What the steps run against: the installed mlb (a release unpacked:
`bin/mlb`, `lib/mlb/plugins/`, `share/mlb/configs/`), the device (the first
GPU, or the CPU), the CPUs both sides of a comparison are pinned to, and a
work folder; with the few ways the steps call mlb. Commands write their
output into the step's log (the step's stdout and stderr)."""
import json
import os
import shutil
import subprocess
import sys

from runner import Failed

# Arguments that name a data folder: dropped from the suites' jobs, which
# then run on synthetic data (a GPU host has no data sets).
DATA_ARGS = ("data", "dataroot")


class Context:
    """`prefix`: the installed mlb; `work`: a folder for reports; `gpu`:
    whether the steps run on the first GPU; `threads`: intra-op threads of
    both sides of a comparison, pinned to as many CPUs; `all_reduce`: mlb's
    NCCL all-reduce timing (the pack's `all_reduce`, `examples/all_reduce.rs`);
    `cgroups`: whether mlb can make slot groups here."""

    def __init__(self, prefix, work, gpu, threads, all_reduce, cgroups):
        self.mlb = os.path.join(prefix, "bin", "mlb")
        self.torch_plugin = os.path.join(prefix, "lib", "mlb", "plugins", "libmlb_torch.so")
        self.configs = os.path.join(prefix, "share", "mlb", "configs")
        self.work, self.gpu, self.threads, self.all_reduce = work, gpu, threads, all_reduce
        self.mode = "gpu" if gpu else "cpu"
        self.device = "cuda:0" if gpu else "cpu"
        self.python = sys.executable
        cpus = ",".join(str(c) for c in sorted(os.sched_getaffinity(0))[:threads])
        self.pin = ["taskset", "-c", cpus] if shutil.which("taskset") else []
        self.cgroup_options = [] if cgroups else ["--no-cgroups"]

    def folder(self, name):
        """An empty folder `name` of the work folder."""
        path = os.path.join(self.work, name)
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
        return path

    def mlb_json(self, *args):
        """The JSON `mlb ARGS` prints, with its exit status."""
        done = subprocess.run([self.mlb, *args], stdout=subprocess.PIPE, text=True)
        try:
            return json.loads(done.stdout), done.returncode
        except json.JSONDecodeError:
            raise Failed(f"`mlb {' '.join(args)}` (exit status {done.returncode}) printed no JSON") from None

    def suite(self, name, timing=None, names=None):
        """The jobs of the installed suite `name` (`share/mlb/configs/NAME.json`),
        those of `names` only when given, without their data folders, with
        `timing` ({"repeat", "number", "skip"}) over their own."""
        with open(os.path.join(self.configs, name + ".json")) as f:
            jobs = json.load(f)
        chosen = []
        for job in jobs:
            if names and job["name"] not in names:
                continue
            args = {k: v for k, v in job.get("args", {}).items() if k not in DATA_ARGS}
            chosen.append(dict(job, args=dict(args, **(timing or {}))))
        return chosen

    def run_jobs(self, jobs, folder, *options):
        """Runs `jobs` through `mlb --jobs` into `folder`: its exit status
        and the reports it wrote."""
        out = os.path.join(folder, "reports")
        status = subprocess.run([self.mlb, "--jobs", write_jobs(jobs, folder), "--outdir", out, *self.cgroup_options,
                                 *options]).returncode
        return status, reports(out)

    def dry_run(self, jobs, folder):
        """Whether mlb accepts `jobs` (`mlb --jobs --dry-run`: every check
        a run makes before it starts, the plugins' arguments included) on
        this host; their files go in `folder`."""
        return subprocess.run([self.mlb, "--jobs", write_jobs(jobs, folder), "--dry-run"],
                              stdout=subprocess.DEVNULL).returncode == 0


def write_jobs(jobs, folder):
    """`jobs` as the jobs file `folder/jobs.json`: its path."""
    path = os.path.join(folder, "jobs.json")
    with open(path, "w") as f:
        json.dump(jobs, f, indent=1)
    return path


def reports(folder):
    """The report files of a run folder (every JSON file with a `suite`),
    sorted by name, as dicts with their file name under `file`."""
    found = []
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        if name.endswith(".json"):
            with open(os.path.join(folder, name)) as f:
                report = json.load(f)
            if isinstance(report, dict) and "suite" in report:
                found.append(dict(report, file=name))
    return found
