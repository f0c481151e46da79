//! The bare runtime: each instance is a process on the host, placed in its
//! slot's cgroup.

use super::process;
use super::{Output, Runtime, Started};
use crate::isolation::SlotGroup;
use crate::plan::{Instance, WorkerPaths};
use std::process::Command;
use std::sync::Arc;

/// Runs instances directly on the host.
#[derive(Clone, Debug)]
pub struct Bare {
    paths: WorkerPaths,
}

impl Bare {
    /// Workers run by this `mlb`, plugins from where they were found.
    pub fn new() -> Self {
        Bare { paths: WorkerPaths::host() }
    }
}

impl Default for Bare {
    fn default() -> Self {
        Self::new()
    }
}

impl Runtime for Bare {
    fn start(&self, instance: &Instance, group: Option<&SlotGroup>, output: Arc<dyn Output>) -> Started {
        process::start(self.command(instance)?, group, output)
    }

    fn command(&self, instance: &Instance) -> Result<Command, String> {
        let argv = instance.argv(&self.paths);
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..]).envs(instance.env.iter().map(|(k, v)| (k, v)));
        Ok(cmd)
    }

    fn describe(&self, _: &Instance) -> String {
        String::new()
    }
}
