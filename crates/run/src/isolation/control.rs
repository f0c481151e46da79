//! What a fault does to a running slot through its group (`--inject`,
//! docs/faults.md): freeze and thaw it (v1's `freezer.state`, v2's
//! `cgroup.freeze`), cap its CPU time (v1's `cpu.cfs_quota_us`, v2's
//! `cpu.max`) and lift the cap, stop and continue its processes.

use super::error::CgroupError;
use super::groups::SlotGroup;
use super::support::Version;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long a freeze may take to settle before it counts as failed.
const SETTLE: Duration = Duration::from_secs(5);

/// The CFS period a CPU cap is counted in, microseconds (the kernel's
/// default).
const PERIOD_US: u64 = 100_000;

/// Why a fault could not act on a slot.
#[derive(Debug, thiserror::Error)]
pub enum ControlError {
    /// The host gives the group no such controller.
    #[error("slot {slot}'s group has no {controller} controller on this host")]
    Missing {
        /// The slot.
        slot: usize,
        /// `freezer` or `cpu`.
        controller: &'static str,
    },
    /// Writing the group's file failed.
    #[error(transparent)]
    Write(#[from] CgroupError),
    /// The group did not reach the frozen state in time.
    #[error("slot {slot}'s group is still {state:?} {SETTLE:?} after it was asked to freeze")]
    Unsettled {
        /// The slot.
        slot: usize,
        /// Its freezer's state.
        state: String,
    },
}

/// Freezes every process of the slot; returns how many there are.
pub fn freeze(group: &SlotGroup) -> Result<usize, ControlError> {
    let (file, frozen) = freezer_file(group)?;
    write(&file, frozen)?;
    let deadline = Instant::now() + SETTLE;
    loop {
        let state = std::fs::read_to_string(&file).unwrap_or_default();
        if state.trim() == frozen {
            return Ok(group.pids().len());
        }
        if Instant::now() > deadline {
            return Err(ControlError::Unsettled { slot: group.index, state: state.trim().to_string() });
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Thaws the slot (a slot not frozen stays as it is).
pub fn thaw(group: &SlotGroup) -> Result<(), ControlError> {
    let (file, _) = freezer_file(group)?;
    let thawed = match group.version() {
        Version::V2 => "0",
        _ => "THAWED",
    };
    write(&file, thawed)
}

/// The freezer's file, and what it reads once frozen (also what to write).
fn freezer_file(group: &SlotGroup) -> Result<(PathBuf, &'static str), ControlError> {
    let dir = group.freezer_dir().ok_or(ControlError::Missing { slot: group.index, controller: "freezer" })?;
    Ok(match group.version() {
        Version::V2 => (dir.join("cgroup.freeze"), "1"),
        _ => (dir.join("freezer.state"), "FROZEN"),
    })
}

/// Caps the slot's CPU time at `share` of its `cpus` CPUs.
pub fn cap_cpu(group: &SlotGroup, cpus: usize, share: f64) -> Result<(), ControlError> {
    let quota = ((share * cpus.max(1) as f64 * PERIOD_US as f64) as u64).max(1_000);
    match group.version() {
        Version::V2 => write(&cpu_dir(group)?.join("cpu.max"), &format!("{quota} {PERIOD_US}")),
        _ => {
            let dir = cpu_dir(group)?;
            write(&dir.join("cpu.cfs_period_us"), &PERIOD_US.to_string())?;
            write(&dir.join("cpu.cfs_quota_us"), &quota.to_string())
        }
    }
}

/// Lifts the slot's CPU cap.
pub fn uncap_cpu(group: &SlotGroup) -> Result<(), ControlError> {
    match group.version() {
        Version::V2 => write(&cpu_dir(group)?.join("cpu.max"), &format!("max {PERIOD_US}")),
        _ => write(&cpu_dir(group)?.join("cpu.cfs_quota_us"), "-1"),
    }
}

fn cpu_dir(group: &SlotGroup) -> Result<&Path, ControlError> {
    group.accounting_dirs()[1].ok_or(ControlError::Missing { slot: group.index, controller: "cpu" })
}

/// Sends `signal` to every process of the slot; returns how many.
pub fn signal_all(group: &SlotGroup, signal: nix::sys::signal::Signal) -> usize {
    let pids = group.pids();
    for &pid in &pids {
        let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), signal);
    }
    pids.len()
}

fn write(file: &Path, value: &str) -> Result<(), ControlError> {
    std::fs::write(file, value).map_err(|source| CgroupError::Write {
        file: file.to_path_buf(),
        value: value.to_string(),
        source,
    })?;
    Ok(())
}
