//! Reports made from a few entries, for the tests of the renderings.

use super::super::{aggregate, Options, Report};
use mlb_record::contract::read::{Entry, Losses, Reading};
use std::path::Path;
use std::sync::Arc;

/// An entry of bench `name` on `vcd` at `avg` items/s, or failed (out of
/// memory, `<killed>`).
pub fn entry(name: &str, vcd: &str, completed: bool, avg: f64) -> Entry {
    Entry {
        file: Arc::from(Path::new("r.json")),
        name: Some(name.into()),
        suite: None,
        vcd: Some(vcd.into()),
        gpu: None,
        slurm_node: None,
        hostname: None,
        completed: Some(completed),
        failure: (!completed).then(|| ("oom".to_string(), "<killed>".to_string())),
        avg: Some(avg),
        losses: Losses::default(),
        conditions: None,
        flops_per_item: None,
        probe_peak: None,
        args: vec![],
    }
}

/// The report of `entries`.
pub fn report(entries: Vec<Entry>) -> Report {
    let reading = Reading { files: entries.len(), entries, unreadable: vec![] };
    aggregate(Path::new("d"), reading, None, &Options::default()).unwrap()
}
