//! The burn's verdicts as a document: one row per slot with its figures
//! and, for a failed slot, why; then the drain commands of failed Slurm nodes.

use super::reading::Slot;
use super::verdict::{Check, Verdict};
use super::Burn;
use mlb_judge::accept::Outcome;
use mlb_judge::report::reproducibility::Verdict as Vote;
use mlb_present::{Body, Cell, Document, Mark};

/// What a vote without a majority means for the burn.
const NOT_REPRODUCIBLE: &str = "no slot failed: without a majority no slot can be named; slots computing other bits \
     from the same start point at the software stack (kernels, threads or libraries not deterministic here) or, \
     between 2 slots, at either one: burn 3 slots or more to name a culprit";

/// The table (with an `sdc` column when the sdc check ran), a note per
/// slot whose link was not judged, per sdc vote and per failed slot's
/// reasons, the drain commands.
pub fn document(burn: &Burn) -> Document {
    let sdc = !burn.sdc.is_empty();
    let mut headers: Vec<String> =
        ["slot", "gpu", "gemm TFLOPS", "of peak", "membw GB/s", "throttled", "busbw GB/s", "link"]
            .map(String::from)
            .into();
    if sdc {
        headers.push("sdc".into());
    }
    headers.push("verdict".into());
    let mut rows: Vec<Vec<Cell>> = Vec::new();
    let mut slots: Vec<&Slot> = burn.verdicts.iter().map(|v| &v.slot).collect();
    slots.dedup();
    for slot in slots {
        let of = |check: Check| burn.verdicts.iter().find(|v| &v.slot == slot && v.check == check);
        let figure = |check: Check, digits: usize| match of(check) {
            Some(Verdict { value: Some(v), bound: Some(b), .. }) if *b > 0.0 => {
                format!("{v:.digits$} ({:.0}% of best)", 100.0 * v / b * burn.tolerance)
            }
            Some(Verdict { value: Some(v), .. }) => format!("{v:.digits$}"),
            _ => "-".into(),
        };
        let share = |check: Check| of(check).and_then(|v| v.value).map_or("-".into(), |s| format!("{:.0}%", 100.0 * s));
        let failed = burn.failed.iter().find(|f| f.slot == slot.label());
        let verdict = match failed {
            Some(_) => Cell::marked(Outcome::Fail.to_string(), Mark::Fail),
            None => Cell::marked("pass", Mark::Pass),
        };
        let mut figures = vec![
            slot.label(),
            slot.gpu.clone().unwrap_or_else(|| "cpu".into()),
            figure(Check::Tflops, 3),
            share(Check::Peak),
            figure(Check::Bandwidth, 1),
            share(Check::Throttled),
            busbw(burn, slot),
            link(burn, slot),
        ];
        if sdc {
            figures.push(bits(of(Check::Sdc)));
        }
        rows.push(figures.into_iter().map(Cell::from).chain([verdict]).collect());
    }
    let mut document = Document::new("mlb burn");
    document.push("Slots", Body::Table(mlb_present::Table { headers, rows }));
    let judged = burn.verdicts.iter().filter(|v| v.check == Check::Link && v.outcome == Outcome::NotMeasured);
    let mut notes: Vec<String> = judged
        .map(|v| format!("slot {} link {}", v.slot.label(), v.reason.as_deref().unwrap_or("not judged")))
        .collect();
    for group in &burn.sdc {
        let mut note = format!("sdc on {}: {}: {}", group.device, group.verdict.label(), group.statement());
        if matches!(group.verdict, Vote::NotReproducible { .. }) {
            note.push_str(&format!("; {NOT_REPRODUCIBLE}"));
        }
        notes.push(note);
    }
    notes.extend(burn.failed.iter().map(|f| format!("slot {} failed: {}", f.slot, f.reason)));
    if !notes.is_empty() {
        document.push("Notes", Body::Notes(notes));
    }
    if !burn.drain.is_empty() {
        let commands = burn.drain.iter().map(|d| d.command.clone()).collect();
        document.push("Drain the failed nodes (mlb burn --drain runs these)", Body::Notes(commands));
    }
    document
}

/// The slot's sdc verdict in a word: the same bits as the majority, the
/// step it left it at, or not judged (no majority, nothing to vote).
fn bits(verdict: Option<&Verdict>) -> String {
    match verdict {
        Some(Verdict { outcome: Outcome::Pass, .. }) => "same bits".into(),
        Some(Verdict { outcome: Outcome::Fail, value: Some(step), .. }) => format!("differs from step {step}"),
        Some(Verdict { outcome: Outcome::Fail, .. }) => "no fingerprints".into(),
        Some(Verdict { outcome: Outcome::NotMeasured, .. }) => "not judged".into(),
        None => "-".into(),
    }
}

/// The slot's all-reduce bus bandwidth and its share of the link's nominal rate.
fn busbw(burn: &Burn, slot: &Slot) -> String {
    let reduce = burn.reduces.iter().find(|r| &r.slot == slot);
    match (reduce.and_then(|r| r.busbw_gbs), reduce.and_then(|r| r.link.nominal_gbs)) {
        (Some(b), Some(n)) => format!("{b:.2} ({:.0}% of nominal)", 100.0 * b / n),
        (Some(b), None) => format!("{b:.2}"),
        _ => "-".into(),
    }
}

/// The interface the slot's all-reduce crossed and its nominal rate.
fn link(burn: &Burn, slot: &Slot) -> String {
    let Some(link) = burn.reduces.iter().find(|r| &r.slot == slot).map(|r| &r.link) else { return "-".into() };
    let interface = link.interface.as_deref().unwrap_or("?");
    match link.nominal_gbs {
        Some(n) => format!("{interface} {n:.2} GB/s"),
        None => format!("{interface} (no rate)"),
    }
}
