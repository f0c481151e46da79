//! Faults on a schedule and restarts from checkpoints (docs/faults.md),
//! through real runs of the launcher on two cgroup slots: spin's
//! instances (`slots`, root tier), and the libtorch plugin's DDP groups and
//! deterministic gpt (`torch`, torch tier).

use crate::common::launcher::{root_or_skip, Launches};
use serde_json::Value;

mod slots;
mod torch;

/// Launches of spin for the test `name`, or none where cgroups cannot be made.
fn launches(name: &str) -> Option<Launches> {
    root_or_skip("a fault on a cgroup slot").then(|| Launches::new(name))
}

/// The `faults` block of instance `jr`'s report.
fn faults(reps: &[(String, Value)], jr: &str) -> Value {
    let (name, r) =
        reps.iter().find(|(_, r)| r["jr_id"] == jr).unwrap_or_else(|| panic!("no report of {jr}: {reps:?}"));
    r.get("faults").cloned().unwrap_or_else(|| panic!("{name} has no faults block: {r}"))
}
