//! This host as the site of a run: each instance started here, a process
//! placed in its slot's cgroup before it executes anything, or a container
//! run by the backend's engine.

use super::{process, Backend, Launch, RuntimeError, Site, SiteTraits, Start, Started, Wrapper};
use crate::plan::Instance;
use std::sync::Arc;

/// Runs instances on this host.
#[derive(Clone, Copy, Debug, Default)]
pub struct Host;

impl Site for Host {
    fn start(&self, backend: &dyn Backend, starts: &[Start]) -> Vec<Started> {
        starts
            .iter()
            .map(|s| match backend.launch(s.instance)? {
                Launch::Process(p) if matches!(p.wrapper, Wrapper::Step { .. }) => Err(RuntimeError::NeedsStep),
                Launch::Process(p) => process::start(p.command(&[]), s.group, Arc::clone(&s.output)),
                Launch::Container(c) => c.start(Arc::clone(&s.output)),
            })
            .collect()
    }

    fn describe(&self, backend: &dyn Backend, instance: &Instance) -> String {
        backend.describe(instance)
    }

    fn traits(&self) -> SiteTraits {
        SiteTraits::default()
    }
}
