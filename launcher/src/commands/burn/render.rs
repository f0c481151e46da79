//! The burn's verdicts as a document: one row per slot with its figures
//! and, for a failed slot, why; then the drain commands of failed Slurm nodes.

use super::reading::Slot;
use super::verdict::{Check, Verdict};
use super::Burn;
use mlb_judge::accept::Outcome;
use mlb_present::{Body, Cell, Document, Mark};

/// The table, a note per slot whose link was not judged and per failed
/// slot's reasons, the drain commands.
pub fn document(burn: &Burn) -> Document {
    let headers = ["slot", "gpu", "gemm TFLOPS", "of peak", "membw GB/s", "throttled", "busbw GB/s", "link", "verdict"]
        .map(String::from);
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
        let figures = [
            slot.label(),
            slot.gpu.clone().unwrap_or_else(|| "cpu".into()),
            figure(Check::Tflops, 3),
            share(Check::Peak),
            figure(Check::Bandwidth, 1),
            share(Check::Throttled),
            busbw(burn, slot),
            link(burn, slot),
        ];
        rows.push(figures.into_iter().map(Cell::from).chain([verdict]).collect());
    }
    let mut document = Document::new("mlb burn");
    document.push("Slots", Body::Table(mlb_present::Table { headers: headers.into(), rows }));
    let judged = burn.verdicts.iter().filter(|v| v.check == Check::Link && v.outcome == Outcome::NotMeasured);
    let mut notes: Vec<String> = judged
        .map(|v| format!("slot {} link {}", v.slot.label(), v.reason.as_deref().unwrap_or("not judged")))
        .collect();
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
