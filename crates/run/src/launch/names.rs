//! Whether every file mlb names after a job fits a file name: its logs
//! (`<suite>.<name>.C<config>.R<run>.J<instance>[.<n>].log`) and its
//! records (`<suite>.<name>.R<run>.D<devices>[.FAIL].<time>.json`) must
//! each fit the 255 bytes a file name may have (`NAME_MAX`), or the failure
//! of an instance would go unrecorded ("File name too long"). A job whose
//! name cannot fit is refused before anything starts.

use super::error::LaunchError;
use super::logs;
use crate::jobs::{JobConfig, JobsFile};
use mlb_record::contract::env::device_list;
use mlb_record::contract::record::{clean, Identity};

/// The most bytes a file name may have (Linux's `NAME_MAX`).
pub const NAME_MAX: usize = 255;

/// What the file names of a run depend on besides the suite and job names.
#[derive(Clone, Copy, Debug)]
pub struct Extent {
    /// The largest run id of the run (`--uid` + `--runs` - 1).
    pub last_run: u64,
    /// Devices on each node: an `all` job's instance names them all.
    pub devices: usize,
    /// Instances of a config at most (slots times nodes).
    pub instances: usize,
}

impl Extent {
    /// The longest file name mlb would make for config `config` of job
    /// `name` in `suite`.
    fn longest(&self, suite: &str, name: &str, config: usize) -> usize {
        let id = Identity {
            suite: suite.into(),
            name: name.into(),
            run_id: self.last_run,
            jr_id: u32::try_from(self.instances.saturating_sub(1)).unwrap_or(u32::MAX),
            vcd: device_list(0..u32::try_from(self.devices).unwrap_or(u32::MAX)),
        };
        let record = id.file_name(true, chrono::Utc::now()).len();
        record.max(logs::longest_name(&id, config).len())
    }
}

/// Refuses the first job of `configs` whose files could not be named.
pub fn check(file: &JobsFile, configs: &[JobConfig], extent: Extent) -> Result<(), LaunchError> {
    for c in configs.iter().filter(|c| c.index == c.of) {
        let longest = extent.longest(&file.suite, &c.name, c.of);
        if longest > NAME_MAX {
            let name = clean(&c.name).len();
            return Err(LaunchError::NameTooLong {
                path: file.path.clone(),
                position: c.position,
                job: c.name.clone(),
                bytes: c.name.len(),
                longest,
                limit: (NAME_MAX + name).saturating_sub(longest),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXTENT: Extent = Extent { last_run: 0, devices: 1, instances: 1 };

    #[test]
    fn the_longest_name_is_the_longest_log_or_record_name() {
        // `s.n.R0.D0.FAIL.20261124-101500-000000.json` (42) and `s.n.C1.R0.J0.10000.log` (22).
        assert_eq!(EXTENT.longest("s", "n", 1), 42);
        // Many configs, instances and devices lengthen the log and the record.
        let wide = Extent { last_run: u64::MAX, devices: 16, instances: 16 };
        let devices = "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15".len();
        assert_eq!(wide.longest("s", "n", 1), 42 - 2 + 20 + devices);
        // With configs and instances in the billions, a log's name is the longer.
        let many = Extent { instances: u32::MAX as usize, ..EXTENT };
        assert_eq!(many.longest("s", "n", usize::MAX), 22 - 2 + 20 + 10);
    }
}
