//! Where a report reads what its entries do not carry: the run's system
//! description and a report file's whole model (for its telemetry
//! timelines). `mlb report` reads them from the folder ([`Disk`]); `mlb
//! serve` from the results store, which keeps both.

use mlb_record::contract::report::Report as ReportFile;
use mlb_run::system::SystemDesc;
use std::path::Path;

/// What a report reads beside its entries.
pub trait Source {
    /// The system description (`system.json`) of the run in `dir`.
    fn system(&self, dir: &Path) -> Option<SystemDesc>;
    /// The report file `file`, when it holds one report.
    fn report(&self, file: &Path) -> Option<ReportFile>;
}

/// The files themselves.
pub struct Disk;

impl Source for Disk {
    fn system(&self, dir: &Path) -> Option<SystemDesc> {
        mlb_run::system::read(dir)
    }

    fn report(&self, file: &Path) -> Option<ReportFile> {
        ReportFile::read(file)
    }
}
