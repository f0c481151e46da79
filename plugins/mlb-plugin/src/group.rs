//! What mlb's launcher tells a workload about process groups through the
//! environment. A workload that trains data parallel when its environment
//! names a group (torchrun's variables, or Slurm's task variables of a step
//! it was started in by hand) must train alone when mlb's launcher started
//! it outside any group: the launcher runs a `cgroup: student` job's
//! instances as the tasks of one Slurm step, whose variables name every
//! task, yet each instance is a benchmark of its own.

/// The variable the launcher sets for an instance it put in no group:
/// [`ALONE`]. Absent when the instance is a rank of a `"group": "ddp"`
/// config (torchrun's variables then name its group) or was not started by
/// mlb's launcher.
pub const GROUP_VAR: &str = "MLB_GROUP";

/// [`GROUP_VAR`]'s value for an instance in no group.
pub const ALONE: &str = "alone";
