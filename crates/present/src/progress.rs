//! Progress of work that can take longer than 2 s (`mlb db import` of
//! 100,000 files, `mlb report` of a large folder, `mlb prepare`), on
//! stderr only: stdout carries the command's output (`mlb report --format
//! json > f` stays JSON).
//!
//! - stderr a terminal: an indicatif bar (the total known) or spinner
//!   (counting), with the rate, cleared at the end: the command's output
//!   says what was done;
//! - stderr not a terminal (a log, a pipe): nothing while the work runs,
//!   then one line, `mlb db import: 100000 report files, ... in 17.2 s`.
//!
//! A tick is an atomic increment, and on a terminal indicatif's check of
//! its draw rate (a bar is drawn at most 20 times a second): work ticks
//! once an item, from any thread.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressFinish, ProgressState, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The progress of one piece of work.
pub struct Progress {
    /// What the work is, first on the bar and the summary line (`mlb db import`).
    label: String,
    /// The unit of the items counted (`files`).
    unit: &'static str,
    started: Instant,
    /// Items done.
    done: AtomicU64,
    /// Bytes done, when the work counts them.
    bytes: AtomicU64,
    shown: Shown,
}

/// Where the progress shows.
enum Shown {
    /// A bar or spinner on a terminal.
    Bar(ProgressBar),
    /// Nothing until the end, then the summary line, written here.
    Summary(Mutex<Box<dyn Write + Send>>),
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress").field("label", &self.label).field("done", &self.done).finish_non_exhaustive()
    }
}

impl Progress {
    /// The progress of `label` (`mlb db import`) over `total` items of
    /// `unit` (`files`), or an unknown number (`None`: a spinner), on
    /// stderr: a bar when it is a terminal, the summary line otherwise.
    pub fn on_stderr(label: &str, total: Option<u64>, unit: &'static str) -> Progress {
        let shown = if std::io::stderr().is_terminal() {
            Shown::Bar(bar(label, total, unit))
        } else {
            Shown::Summary(Mutex::new(Box::new(std::io::stderr())))
        };
        Progress::new(label, unit, shown)
    }

    /// The progress of `label`, its summary line written to `out`.
    pub fn to_writer(label: &str, unit: &'static str, out: impl Write + Send + 'static) -> Progress {
        Progress::new(label, unit, Shown::Summary(Mutex::new(Box::new(out))))
    }

    fn new(label: &str, unit: &'static str, shown: Shown) -> Progress {
        Progress {
            label: label.to_string(),
            unit,
            started: Instant::now(),
            done: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            shown,
        }
    }

    /// One item done.
    pub fn tick(&self) {
        self.add(1);
    }

    /// `items` more done.
    pub fn add(&self, items: u64) {
        self.done.fetch_add(items, Ordering::Relaxed);
        if let Shown::Bar(bar) = &self.shown {
            bar.inc(items);
        }
    }

    /// One item of `bytes` bytes done: the bar shows the megabytes.
    pub fn add_bytes(&self, bytes: u64) {
        let total = self.bytes.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.add(1);
        if let Shown::Bar(bar) = &self.shown {
            bar.set_message(megabytes(total));
        }
    }

    /// Items done so far.
    pub fn done(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    /// Ends the work: clears the bar, or writes the summary line, `label:
    /// what in 1.2 s`; `what` defaults to the items (and bytes) counted
    /// (`None`: `1200 files, 3.4 MB`). Work that fails drops its progress
    /// unfinished: no summary, the bar cleared, the error says what happened.
    pub fn finish(self, what: Option<&str>) {
        match self.shown {
            Shown::Bar(bar) => bar.finish_and_clear(),
            Shown::Summary(ref out) => {
                let what = what.map_or_else(|| self.counted(), str::to_string);
                let line = summary(&self.label, &what, self.started.elapsed());
                let mut out = out.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                // A stderr that cannot be written (a closed pipe) loses the line, not the work.
                let _ = out.write_all(line.as_bytes()).and_then(|()| out.flush());
            }
        }
    }

    /// What was counted: `1200 files`, and `, 3.4 MB` when bytes were.
    fn counted(&self) -> String {
        let mut what = format!("{} {}", self.done(), self.unit);
        let bytes = self.bytes.load(Ordering::Relaxed);
        if bytes > 0 {
            what.push_str(&format!(", {}", megabytes(bytes)));
        }
        what
    }
}

/// The bar (`total` known) or spinner of `label` on stderr, cleared when
/// dropped unfinished (the error that stopped the work follows).
fn bar(label: &str, total: Option<u64>, unit: &str) -> ProgressBar {
    let template = match total {
        Some(_) => format!("{{prefix}} [{{bar:30}}] {{pos}}/{{len}} {unit} | {{rate}} | {{msg}} | ETA {{eta}}"),
        None => format!("{{spinner}} {{prefix}} {{pos}} {unit} | {{rate}} {{msg}}"),
    };
    let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr()).with_finish(ProgressFinish::AndClear);
    let style = ProgressStyle::with_template(&template).expect("a valid template").progress_chars("=> ");
    // Whole items a second: indicatif's `{per_sec}` gives four decimals.
    bar.set_style(style.with_key("rate", |state: &ProgressState, w: &mut dyn std::fmt::Write| {
        let _ = write!(w, "{:.0}/s", state.per_sec());
    }));
    bar.set_prefix(label.to_string());
    if total.is_none() {
        // A spinner turns between ticks: work of few slow items (probes, diagnostics) still shows it runs.
        bar.enable_steady_tick(Duration::from_millis(120));
    }
    bar
}

/// The summary line: `label: what in 1.2 s`, and a newline.
fn summary(label: &str, what: &str, took: Duration) -> String {
    format!("{label}: {what} in {:.1} s\n", took.as_secs_f64())
}

/// `bytes` in megabytes, to a tenth.
fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// A writer whose bytes the test reads back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Shared {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    #[test]
    fn piped_nothing_is_written_while_the_work_runs_then_one_summary_line_of_the_counts() {
        let out = Shared::default();
        let progress = Progress::to_writer("mlb report", "report files", out.clone());
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| (0..25_000).for_each(|_| progress.tick()));
            }
        });
        progress.add(3);
        assert_eq!(out.text(), "", "nothing before the end");
        assert_eq!(progress.done(), 100_003);
        progress.finish(None);
        let text = out.text();
        assert_eq!(text.lines().count(), 1, "{text:?}");
        assert!(text.starts_with("mlb report: 100003 report files in ") && text.ends_with(" s\n"), "{text:?}");
    }

    #[test]
    fn the_summary_says_what_the_caller_says_or_the_items_and_bytes_counted() {
        let out = Shared::default();
        let progress = Progress::to_writer("mlb db import", "files", out.clone());
        progress.tick();
        progress.finish(Some("5 files, 3 imported, 2 left out"));
        assert!(out.text().starts_with("mlb db import: 5 files, 3 imported, 2 left out in "), "{}", out.text());
        let out = Shared::default();
        let progress = Progress::to_writer("generate MNIST", "files", out.clone());
        progress.add_bytes(1_500_000);
        progress.add_bytes(250_000);
        progress.finish(None);
        assert!(out.text().starts_with("generate MNIST: 2 files, 1.8 MB in "), "{}", out.text());
    }

    #[test]
    fn the_summary_line_gives_the_time_to_a_tenth_of_a_second() {
        assert_eq!(
            summary("mlb db import", "3 files", Duration::from_millis(17_240)),
            "mlb db import: 3 files in 17.2 s\n"
        );
    }
}
