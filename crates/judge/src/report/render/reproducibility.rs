//! The *Reproducibility* section: one line per vote group (config, device,
//! stack) with its verdict and statement, then notes on the instances with
//! fewer fingerprints and on what the verdicts can tell. Shown only when
//! some report has a `determinism` block.

use super::super::reproducibility::{Group, Verdict};
use super::sections::{section, table, Section};
use mlb_present::{Body, Cell, Mark};

/// What a stack that is not reproducible means, and what it does not.
const NOT_REPRODUCIBLE: &str = "not reproducible on this stack: at some step no fingerprint is shared by more than \
     half the instances, so the vote cannot tell which is wrong; a finding about the software stack (its kernels, \
     threads, libraries), not a failed GPU";

/// What an outlier is.
const OUTLIER: &str = "outliers: instances that left the fingerprint most instances share, from the step named; \
     each is a suspect device, to rerun or test alone";

/// The section and its notes of the vote `groups` (`mlb report`'s, or
/// `mlb db vote`'s), when there is some group.
pub fn sections(groups: &[Group]) -> Vec<Section> {
    if groups.is_empty() {
        return Vec::new();
    }
    let rows = groups
        .iter()
        .map(|g| {
            let mark = match g.verdict {
                Verdict::BitIdentical => Some(Mark::Pass),
                Verdict::Outliers { .. } => Some(Mark::Fail),
                Verdict::NotReproducible { .. } => Some(Mark::Warn),
                Verdict::OneInstance | Verdict::NoCommonStep => None,
            };
            vec![
                g.config.as_str().into(),
                g.device.as_str().into(),
                g.stack_line().into(),
                g.instances.len().to_string().into(),
                g.nodes.to_string().into(),
                g.last_step.map_or("-".into(), |s| s.to_string().into()),
                Cell { text: g.verdict.label().into(), mark },
                g.statement().into(),
            ]
        })
        .collect();
    let headers = ["config", "device", "stack", "instances", "nodes", "last step", "verdict", "detail"];
    let mut out = vec![section("Reproducibility (fingerprints of deterministic runs, voted)", table(&headers, rows))];
    let mut notes: Vec<String> =
        groups.iter().flat_map(|g| g.short_lines()).map(|l| format!("fewer fingerprints: {l}")).collect();
    if groups.iter().any(|g| matches!(g.verdict, Verdict::Outliers { .. })) {
        notes.push(OUTLIER.into());
    }
    if groups.iter().any(|g| matches!(g.verdict, Verdict::NotReproducible { .. })) {
        notes.push(NOT_REPRODUCIBLE.into());
    }
    if !notes.is_empty() {
        out.push(section("Reproducibility notes", Body::Notes(notes)));
    }
    out
}
