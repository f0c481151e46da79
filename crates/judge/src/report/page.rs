//! Writing the HTML page (`--html FILE`) whole or not at all: it is
//! rendered, written beside `FILE` and renamed over it, as every file mlb
//! writes (into a device or a FIFO instead, never over it; a link or a
//! folder is refused before the rendering: [`Output`]). Ctrl-C or SIGTERM from the start of the rendering until the
//! rename stops the write and removes what was written: a previous page
//! at `FILE` is never left truncated or empty.

use super::error::ReportError;
use mlb_record::contract::record::Output;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// Renders the page with `render` and puts it at `path`.
pub fn write(path: &Path, render: impl FnOnce() -> String) -> Result<(), ReportError> {
    let html = |source| ReportError::Html { path: path.to_path_buf(), source };
    let output = Output::at(path).map_err(html)?;
    let interrupt = mlb_run::runtime::signals::install().map_err(html)?;
    let interrupted = |flag: &AtomicBool| {
        if flag.load(Ordering::SeqCst) {
            Err(ReportError::Interrupted { path: path.to_path_buf() })
        } else {
            Ok(())
        }
    };
    let page = render();
    interrupted(&interrupt)?;
    let written = output.write(page.as_bytes()).map_err(html)?;
    // Dropped here on a signal: the temporary file goes, the page stays.
    interrupted(&interrupt)?;
    written.finish().map_err(html)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_written_whole_and_a_missing_folder_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("page.html");
        write(&path, || "<html></html>".into()).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "<html></html>");
        let missing = dir.path().join("no/page.html");
        let err = write(&missing, String::new).unwrap_err();
        assert!(matches!(err, ReportError::Html { .. }) && err.to_string().contains("no/page.html"), "{err}");
    }
}
