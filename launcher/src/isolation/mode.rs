//! What confines an instance, decided once per instance and named in its
//! report (`provenance.isolation`) and its environment (`MLB_ISOLATION`).

use std::fmt;

/// What confines an instance to its slot's CPUs and memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isolation {
    /// Nothing: an `all` instance, `--no-cgroups`, or a host without cgroups.
    None,
    /// The launcher's cgroup v1 groups.
    CgroupV1,
    /// The launcher's cgroup v2 groups.
    CgroupV2,
    /// Docker applies the slot's limits to the instance's container.
    Docker,
    /// Slurm confines the task that runs the instance.
    Slurm,
}

impl Isolation {
    /// The name reports and `MLB_ISOLATION` carry: `none`, `cgroup-v1`,
    /// `cgroup-v2`, `docker`, `slurm`.
    pub fn name(self) -> &'static str {
        match self {
            Isolation::None => "none",
            Isolation::CgroupV1 => "cgroup-v1",
            Isolation::CgroupV2 => "cgroup-v2",
            Isolation::Docker => "docker",
            Isolation::Slurm => "slurm",
        }
    }

    /// The isolation of one instance in a run isolated by `self`: the
    /// launcher's groups hold slot instances only (an `all` instance is
    /// unconstrained); a container runtime or Slurm wraps every instance.
    pub fn of_instance(self, in_slot: bool) -> Isolation {
        match self {
            Isolation::CgroupV1 | Isolation::CgroupV2 if !in_slot => Isolation::None,
            run => run,
        }
    }
}

impl fmt::Display for Isolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::Isolation;

    #[test]
    fn names_as_reports_write_them() {
        let all = [Isolation::None, Isolation::CgroupV1, Isolation::CgroupV2, Isolation::Docker, Isolation::Slurm];
        let names: Vec<String> = all.iter().map(Isolation::to_string).collect();
        assert_eq!(names, ["none", "cgroup-v1", "cgroup-v2", "docker", "slurm"]);
    }

    #[test]
    fn groups_hold_slot_instances_only_and_a_runtime_wraps_every_instance() {
        assert_eq!(Isolation::CgroupV2.of_instance(true), Isolation::CgroupV2);
        assert_eq!(Isolation::CgroupV1.of_instance(false), Isolation::None);
        assert_eq!(Isolation::Docker.of_instance(false), Isolation::Docker);
        assert_eq!(Isolation::Slurm.of_instance(false), Isolation::Slurm);
        assert_eq!(Isolation::None.of_instance(true), Isolation::None);
    }
}
