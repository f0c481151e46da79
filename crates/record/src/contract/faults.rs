//! The report's `faults` block: the faults `--inject` put into a config's
//! instances, the restarts `--restarts` made, and the goodput the config
//! kept (docs/faults.md). The launcher sets it on every report of the
//! config once its last attempt has ended, as it sets `telemetry`; `mlb
//! report` reads it back. Times are seconds since the config's first
//! attempt started, on the launcher's clock.

use serde::{Deserialize, Serialize};

/// The `faults` block.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Faults {
    /// Every fault applied to the config's instances, in time order.
    #[serde(default)]
    pub injected: Vec<Injected>,
    /// Every restart of the config's instances, in order.
    #[serde(default)]
    pub restarts: Vec<Restart>,
    /// The work the config kept for the time and slots it held.
    pub goodput: Option<Goodput>,
}

/// One fault, as applied.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Injected {
    /// The fault as `--inject` wrote it (`freeze:slot=1@60s,for=30s`).
    pub fault: String,
    /// When it was applied.
    pub at_s: f64,
    /// When it was lifted (a freeze thawed, a quota removed); none for a
    /// kill, or a fault still on when the config ended.
    pub until_s: Option<f64>,
    /// What was done (`froze slot 1: 3 processes`), or why nothing was
    /// (`rank 1 had ended`).
    pub done: String,
}

/// One restart: what failed, how soon it was known, how long the restart
/// took and the work it cost.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Restart {
    /// The attempt that started (1: the first restart).
    pub attempt: u32,
    /// Which instance ended the attempt before, and how
    /// (`instance 1 (device 1): crashed (signal 9)`).
    pub failed: String,
    /// The fault applied last before the failure, if any.
    pub fault: Option<String>,
    /// When the launcher saw the first instance fail.
    pub detected_at_s: f64,
    /// From the fault to its detection.
    pub detection_s: Option<f64>,
    /// What saw it: `supervisor` (the instance's own end: its exit, its
    /// signal) or `group` (a peer's collective failed first: its timeout,
    /// or a closed connection).
    pub detected_by: String,
    /// The instances started again.
    pub instances: Vec<u32>,
    /// The step each restarted instance restored (none: started over).
    pub restored_step: Option<u64>,
    /// From the detection to the first restarted instance's first step
    /// after its restore (none: it never got there).
    pub restart_s: Option<f64>,
    /// Items the failed attempt computed past the restored checkpoint,
    /// summed over the restarted instances: computed again. At least this
    /// many: a partial observation's items are not seen.
    pub items_lost: u64,
}

/// The config's goodput: useful items per second and slot, over the whole
/// time its instances held their slots, failures and restarts included.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Goodput {
    /// From the first attempt's start to the last instance's end.
    pub wall_s: f64,
    /// Slots the config held.
    pub slots: usize,
    /// Items of the completed training, every instance's (not counting the
    /// items computed again).
    pub useful_items: f64,
    /// `useful_items / (wall_s * slots)`.
    pub items_per_slot_s: f64,
    /// The same config run without faults just before (`--inject`'s
    /// reference run), measured the same way.
    pub reference: Option<Reference>,
}

/// The reference run's goodput, and the faulted run's against it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    /// Its wall time.
    pub wall_s: f64,
    /// Its items per second and slot.
    pub items_per_slot_s: f64,
    /// The faulted run's goodput over the reference's (1: nothing lost).
    pub ratio: f64,
}
