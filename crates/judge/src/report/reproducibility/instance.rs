//! The instances that take part in the vote: the entries of a config run
//! with `deterministic: true` whose report holds a `determinism` block.
//!
//! The light entries `mlb report` reads do not carry the block: the entries
//! that ask for a deterministic run (their config's `deterministic` flag,
//! read as the worker reads it) are read again whole through the report's
//! [`Source`], as the sampled timelines are. Other entries cost nothing.

use super::super::per_gpu::device_order;
use super::super::rows::{layout, Grouping, Judged, Layout};
use super::super::source::Source;
use mlb_record::contract::determinism::{Determinism, DeterministicRun, DETERMINISTIC};
use mlb_record::contract::read::Entry;
use serde::Serialize;
use serde_json::Map;
use std::borrow::Cow;
use std::fmt;
use std::path::PathBuf;

/// Which instance a report is, as the vote names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Name {
    /// The run (`run_id`).
    pub run_id: u64,
    /// The instance's index in its run (`jr_id`).
    pub jr_id: u32,
    /// Where it ran: its Slurm node, else its host name.
    pub node: Option<String>,
    /// Its visible device(s) (`vcd`): the slot.
    pub vcd: Option<String>,
    /// Its report file.
    pub file: PathBuf,
    /// The run it is of, when a vote spans runs (`mlb db vote`: `stored
    /// run 12 of system sys-a`); none in `mlb report`, whose instances are
    /// all of the folder read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

impl Name {
    /// The order instances are listed in: by run, node, device (ids in
    /// numeric order), index, file.
    pub fn order(&self) -> impl Ord + '_ {
        let vcd = self.vcd.as_deref().map(device_order);
        (self.run_id, self.node.as_deref(), vcd, self.jr_id, &self.file)
    }
}

impl fmt::Display for Name {
    /// `run 0 node n2 vcd 3` (`?` for what the report does not say), then
    /// its origin in parentheses when it has one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (node, vcd) = (self.node.as_deref().unwrap_or("?"), self.vcd.as_deref().unwrap_or("?"));
        write!(f, "run {} node {node} vcd {vcd}", self.run_id)?;
        match &self.origin {
            Some(origin) => write!(f, " ({origin})"),
            None => Ok(()),
        }
    }
}

/// One instance of a deterministic config, with what it computed.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    /// Its config's row among the report's per-config rows (their order).
    pub row: usize,
    /// Its config: the row's label (`convnet[arch=resnet18]`).
    pub config: String,
    /// Its bench.
    pub bench: String,
    /// Which instance it is.
    pub name: Name,
    /// Its report's `determinism` block.
    pub determinism: Determinism,
}

/// Whether `entry`'s config asks for a deterministic run.
fn deterministic(entry: &Entry) -> bool {
    let Some((key, value)) = entry.args.iter().find(|(k, _)| &**k == DETERMINISTIC) else { return false };
    let flag = Map::from_iter([(key.to_string(), value.clone())]);
    matches!(DeterministicRun::of(&flag), Ok(Some(_)))
}

/// The instances of `judged` that take part in the vote, each in its row
/// of the per-config layout `configs` (asked for only when some entry is
/// deterministic), its report read whole from `source`.
pub fn instances<'l, 'a: 'l>(
    judged: &[Judged<'a>],
    configs: impl FnOnce() -> Cow<'l, Layout<'a>>,
    source: &dyn Source,
) -> Vec<Instance> {
    let asked: Vec<usize> = (0..judged.len()).filter(|&i| deterministic(judged[i].entry)).collect();
    if asked.is_empty() {
        return Vec::new();
    }
    let configs = configs();
    asked
        .into_iter()
        .filter_map(|i| {
            let entry = judged[i].entry;
            let row = configs.of_entry[i]?;
            let report = source.report(&entry.file)?;
            let determinism = report.determinism?;
            let name = Name {
                run_id: report.run_id,
                jr_id: report.jr_id,
                node: entry.node().map(str::to_string),
                vcd: entry.vcd.as_deref().map(str::to_string),
                file: entry.file.to_path_buf(),
                origin: None,
            };
            let key = &configs.rows[row];
            Some(Instance { row, config: key.label.clone(), bench: key.bench.to_string(), name, determinism })
        })
        .collect()
}

/// The instances of `entries` that take part in the vote, each in its
/// row among the per-config rows `mlb report` lays the entries out in,
/// its report read whole from `source`: for a vote over entries of many
/// runs (`mlb db vote`), whose rows then tell configs apart by the
/// arguments that vary among all of them, never by run.
pub fn instances_of(entries: &[Entry], source: &dyn Source) -> Vec<Instance> {
    let judged: Vec<Judged> = entries.iter().map(|entry| Judged { entry, check: None }).collect();
    instances(&judged, || Cow::Owned(layout(&judged, Grouping::Config)), source)
}

#[cfg(test)]
mod tests {
    use super::super::super::render::fixtures;
    use super::*;
    use mlb_record::contract::report::Report as ReportFile;
    use serde_json::{json, Value};
    use std::path::Path;
    use std::sync::Arc;

    /// Report files by name, each with a determinism block.
    struct Files;

    impl Source for Files {
        fn system(&self, _: &Path) -> Option<mlb_run::system::SystemDesc> {
            None
        }

        fn report(&self, file: &Path) -> Option<ReportFile> {
            let run_id = file.to_str()?.trim_end_matches(".json").parse().ok()?;
            let determinism = Determinism { every: 10, device: "Xeon".into(), ..Determinism::default() };
            Some(ReportFile { run_id, determinism: Some(determinism), ..ReportFile::default() })
        }
    }

    fn entry(file: &str, deterministic: Option<Value>) -> Entry {
        let mut e = fixtures::entry("spin", "0", true, 1.0);
        e.file = Arc::from(Path::new(file));
        e.hostname = Some("h1".into());
        e.args = deterministic.into_iter().map(|v| (Arc::from(DETERMINISTIC), v)).collect();
        e
    }

    #[test]
    fn only_entries_asking_for_a_deterministic_run_are_read_again() {
        let entries = [
            entry("1.json", Some(json!(true))),
            entry("2.json", Some(json!(false))),
            entry("3.json", None),
            entry("4.json", Some(json!("1"))),
        ];
        let found = instances_of(&entries, &Files);
        let names: Vec<String> = found.iter().map(|i| i.name.to_string()).collect();
        assert_eq!(names, ["run 1 node h1 vcd 0", "run 4 node h1 vcd 0"]);
        assert_eq!(found[0].config, "spin[deterministic=True]", "labelled as the launcher labels configs");
        assert_eq!(found[0].determinism.device, "Xeon");
        let plain = [entry("3.json", None)];
        let judged: Vec<Judged> = plain.iter().map(|entry| Judged { entry, check: None }).collect();
        let asked = instances(&judged, || panic!("no layout without a deterministic entry"), &Files);
        assert!(asked.is_empty());
    }
}
