//! The burn's verdicts as a table: one row per slot with its figures and,
//! for a failed slot, why; then the drain commands of failed Slurm nodes.

use super::verdict::{Check, Verdict};
use super::Burn;
use crate::accept::Outcome;
use crate::store::query::render::table;

/// The table, a line per failed slot's reasons, the drain commands.
pub fn table(burn: &Burn) -> String {
    let headers = ["slot", "gpu", "gemm TFLOPS", "of peak", "membw GB/s", "throttled", "verdict"].map(String::from);
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut slots: Vec<&super::reading::Slot> = burn.verdicts.iter().map(|v| &v.slot).collect();
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
        rows.push(vec![
            slot.label(),
            slot.gpu.clone().unwrap_or_else(|| "cpu".into()),
            figure(Check::Tflops, 3),
            share(Check::Peak),
            figure(Check::Bandwidth, 1),
            share(Check::Throttled),
            failed.map_or("pass".into(), |_| Outcome::Fail.to_string()),
        ]);
    }
    let mut out = table::text(&headers, &rows);
    for f in &burn.failed {
        out.push_str(&format!("slot {} failed: {}\n", f.slot, f.reason));
    }
    if !burn.drain.is_empty() {
        out.push_str("drain the failed nodes (mlb burn --drain runs these):\n");
        for d in &burn.drain {
            out.push_str(&format!("  {}\n", d.command));
        }
    }
    out
}
