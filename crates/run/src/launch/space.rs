//! A full output folder stops the run. Once a file of the run (a failure
//! record, a result line) cannot be written for lack of space (`ENOSPC`, or
//! `EDQUOT` past a quota), every config after it would fail the same way
//! and leave no trace, so none is started; what was written stays.

use super::error::LaunchError;
use super::progress::Display;
use std::io::ErrorKind;
use std::path::Path;

/// The first write of the run that failed for lack of space, if any.
#[derive(Debug, Default)]
pub struct Space {
    full: Option<(String, std::io::Error)>,
}

impl Space {
    /// Takes a write of the run that failed: `what` (`write the failure
    /// record PATH`) failed with `error`. The first failure for lack of
    /// space is kept (later ones tell nothing new); any other is told on
    /// `display`.
    pub fn failed(&mut self, what: String, error: std::io::Error, display: &Display) {
        if !lacks_space(&error) {
            display.note(&format!("mlb: cannot {what}: {error}"));
        } else if self.full.is_none() {
            self.full = Some((what, error));
        }
    }

    /// Whether a write failed for lack of space.
    pub fn is_full(&self) -> bool {
        self.full.is_some()
    }

    /// The error ending a run into `outdir` that stopped with `not_started`
    /// job configs left, when a write failed for lack of space.
    pub fn stopped(self, outdir: &Path, not_started: usize) -> Option<LaunchError> {
        self.full.map(|(what, source)| LaunchError::NoSpace { outdir: outdir.to_path_buf(), what, source, not_started })
    }
}

/// Whether `error` says the filesystem, or the user's quota on it, is full
/// (by its kind: an error wrapped with its path has no OS code).
fn lacks_space(error: &std::io::Error) -> bool {
    matches!(error.kind(), ErrorKind::StorageFull | ErrorKind::QuotaExceeded)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Error;

    #[test]
    fn the_first_failure_for_lack_of_space_stops_the_run_others_are_told() {
        let mut space = Space::default();
        space.failed("write a".into(), Error::from(ErrorKind::PermissionDenied), &Display::Plain);
        assert!(!space.is_full(), "not for lack of space");
        space.failed("write b".into(), Error::from_raw_os_error(nix::libc::EDQUOT), &Display::Plain);
        space.failed("write c".into(), Error::from_raw_os_error(nix::libc::ENOSPC), &Display::Plain);
        assert!(space.is_full());
        let wrapped = Error::new(Error::from_raw_os_error(nix::libc::ENOSPC).kind(), "at path /out/.tmp");
        assert!(lacks_space(&wrapped), "as tempfile wraps it, with its path");
        let e = space.stopped(Path::new("/out"), 3).unwrap();
        assert!(
            e.to_string().starts_with("no space left in the output folder /out: cannot write b: Disk quota exceeded"),
            "{e}"
        );
        assert!(e.to_string().contains("the run stopped with 3 job config(s) not started"), "{e}");
        assert_eq!(mlb_record::exit::Classify::kind(&e), mlb_record::exit::Kind::Failed, "it started things");
        assert!(Space::default().stopped(Path::new("/out"), 3).is_none());
    }
}
