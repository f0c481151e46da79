//! Which [`Isolation`] each instance of a run gets. The type itself lives in
//! [`contract::isolation`](crate::contract::isolation), below the plan,
//! the worker and the report, which all name it.

use crate::contract::isolation::Isolation;

impl Isolation {
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

#[cfg(test)]
mod tests {
    use super::Isolation;

    #[test]
    fn groups_hold_slot_instances_only_and_a_runtime_wraps_every_instance() {
        assert_eq!(Isolation::CgroupV2.of_instance(true), Isolation::CgroupV2);
        assert_eq!(Isolation::CgroupV1.of_instance(false), Isolation::None);
        assert_eq!(Isolation::Docker.of_instance(false), Isolation::Docker);
        assert_eq!(Isolation::Slurm.of_instance(false), Isolation::Slurm);
        assert_eq!(Isolation::None.of_instance(true), Isolation::None);
    }
}
