//! `mlb doctor`, also run before every `mlb --jobs` (a warning, or a
//! refusal with `--strict-preflight`): is this host fit to measure on? Each
//! check says what it found and the fix; the verdict goes into the output
//! folder (`doctor.json`).

pub mod burn_record;
pub mod check;
pub mod diag;
mod host;

pub use check::{Verdict, FILE};

use crate::check::Check;
use crate::host::Host;
use std::path::Path;

/// Every check of `host` for a run writing into `outdir` and reading the
/// data files `data` (paths its selected jobs name).
pub fn examine(host: &Host, outdir: &Path, data: &[&Path]) -> Verdict {
    let mut checks = vec![host::cgroups(host), host::disk(outdir)];
    checks.extend(host::data(data));
    checks.extend(match crate::gpu::vendor_of(&host.gpus) {
        Some(vendor) => vendor.ops().checks(&host.gpus),
        None => vec![Check::pass("gpus", "no GPU: nothing to check")],
    });
    Verdict { checks, diagnostics: Vec::new() }
}
