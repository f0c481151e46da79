//! Every source of an instance read at one instant.

use mlb_record::reading::Reading;

/// Every source read at one instant.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sample {
    /// When, seconds of `CLOCK_MONOTONIC` ([`mlb_record::contract::window::now`]).
    pub t: f64,
    /// The slot: its cgroup, its CPUs' frequency, the package energy.
    pub slot: Reading,
    /// The instance's GPUs, in the order of its devices.
    pub gpus: Vec<Reading>,
}
