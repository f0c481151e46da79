"""Slots on cgroups: what `mlb detect` finds (the cgroup version and
whether slot groups can be made, the CPUs, memory and GPUs), then one
instance of the spin workload through `mlb --jobs` in its slot, whose
report gives what the instance read back from inside: its cgroup, its CPUs
and its memory limit. The step fails when the instance was not confined to
a slot group."""
from runner import Failed, Step

JOB = {"name": "slot", "plugin": "spin", "args": {"repeat": 2, "number": 1, "skip": 1, "size": 64}, "cgroup": "student"}


def run(context, figures):
    host, _ = context.mlb_json("detect", "--format", "json")
    cgroup = host.get("cgroup") or {}
    figures.set("cgroup", f"{cgroup.get('version')} at {cgroup.get('mount')}, slot groups can be made: "
                          f"{cgroup.get('can_create')}")
    figures.set("host", f"{host.get('kind')}, {len(host.get('gpus') or [])} GPUs, {len(host.get('cpus') or [])} CPUs, "
                        f"{(host.get('memory') or {}).get('usable_bytes')} bytes usable")
    status, reports = context.run_jobs([JOB], context.folder("slots"))
    if status != 0 or len(reports) != 1:
        raise Failed(f"mlb --jobs exit status {status}, {len(reports)} reports")
    seen = reports[0].get("provenance") or {}
    for key in ("isolation", "cgroup", "cpus", "cpu_count", "memory_limit_bytes"):
        figures.set(f"instance {key}", seen.get(key))
    if not str(seen.get("isolation", "")).startswith("cgroup") or seen.get("memory_limit_bytes") is None:
        raise Failed(f"the instance was not confined to a slot group (isolation {seen.get('isolation')}, "
                     f"memory limit {seen.get('memory_limit_bytes')})")


STEP = Step("slots", "Slots on cgroups (`mlb detect`)", {"gpu": 20, "cpu": 20}, run)
