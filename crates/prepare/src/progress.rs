//! Progress of one data set being generated or checked: an indicatif bar on
//! a terminal (files, files per second, MB written, estimated time left),
//! nothing otherwise (the summary lines say what was done). On stderr.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};

/// Files and bytes done of one data set.
#[derive(Debug)]
pub struct Progress {
    bar: Option<ProgressBar>,
    bytes: AtomicU64,
}

impl Progress {
    /// A bar `label` (`generate ImageNet`) of `files` files when stderr is a terminal.
    pub fn for_stderr(label: &str, files: usize) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::with_draw_target(Some(files as u64), ProgressDrawTarget::stderr());
            let template = "{prefix} [{bar:30}] {pos}/{len} files | {per_sec} | {msg} | ETA {eta}";
            bar.set_style(ProgressStyle::with_template(template).expect("a valid template").progress_chars("=> "));
            bar.set_prefix(label.to_string());
            bar
        });
        Progress { bar, bytes: AtomicU64::new(0) }
    }

    /// One file of `bytes` bytes done.
    pub fn file(&self, bytes: u64) {
        let total = self.bytes.fetch_add(bytes, Ordering::Relaxed) + bytes;
        if let Some(bar) = &self.bar {
            bar.inc(1);
            bar.set_message(format!("{:.1} MB", total as f64 / 1e6));
        }
    }

    /// Removes the bar.
    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}
