//! The bare backend: each instance is a process as planned, run by this
//! `mlb` with the plugins where they were found.

use super::{Backend, Launch, ProcessLaunch, RuntimeError, Traits, Wrapper};
use crate::plan::{Instance, WorkerPaths};

/// Runs instances as they are.
#[derive(Clone, Debug)]
pub struct Bare {
    paths: WorkerPaths,
    traits: Traits,
}

impl Bare {
    /// Workers run by this `mlb`, plugins from where they were found.
    pub fn new() -> Self {
        Bare { paths: WorkerPaths::host(), traits: Traits::default() }
    }

    /// `instance` as a process of its own.
    pub fn process(&self, instance: &Instance) -> ProcessLaunch {
        ProcessLaunch { argv: instance.argv(&self.paths), env: instance.env.clone(), wrapper: Wrapper::Bare }
    }
}

impl Default for Bare {
    fn default() -> Self {
        Self::new()
    }
}

impl Backend for Bare {
    fn launch(&self, instance: &Instance) -> Result<Launch, RuntimeError> {
        Ok(Launch::Process(self.process(instance)))
    }

    fn describe(&self, _: &Instance) -> String {
        String::new()
    }

    fn traits(&self) -> &Traits {
        &self.traits
    }
}
