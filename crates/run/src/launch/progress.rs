//! Progress of running job configs: bars (instances, observations, ETA) on
//! a terminal, plain lines otherwise. Everything goes to stderr; stdout
//! carries only the result lines.

use crate::console::Console;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};

/// Where an instance stands, updated from its `[  3/ 20] | ETA ...` lines.
#[derive(Debug, Default)]
pub struct Counter {
    /// Observations done.
    pub done: AtomicU64,
    /// Observations in all (0 until the first line).
    pub total: AtomicU64,
}

impl Counter {
    /// `done` observations of `total`, as a worker's progress line
    /// ([`WorkerLine::Progress`](mlb_record::contract::WorkerLine)) says.
    pub fn set(&self, done: u64, total: u64) {
        self.done.store(done, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
    }
}

/// The progress display of a launch.
#[derive(Debug)]
pub enum Display {
    /// indicatif bars on a terminal.
    Bars(MultiProgress),
    /// Plain lines.
    Plain,
}

/// The progress of one running job config.
#[derive(Debug)]
pub struct JobProgress {
    bar: Option<ProgressBar>,
    label: String,
    instances: usize,
}

impl Display {
    /// Bars when stderr is a terminal, plain lines otherwise.
    pub fn for_stderr() -> Display {
        if std::io::stderr().is_terminal() {
            Display::Bars(MultiProgress::with_draw_target(ProgressDrawTarget::stderr()))
        } else {
            Display::Plain
        }
    }

    /// A line for a person, above the bars.
    pub fn note(&self, text: &str) {
        match self {
            Display::Bars(m) => {
                let _ = m.println(text);
            }
            Display::Plain => Console::Err.line(text),
        }
    }

    /// Starts showing a job config with `instances` instances.
    pub fn start(&self, label: &str, instances: usize) -> JobProgress {
        let bar = match self {
            Display::Bars(m) => {
                let bar = m.add(ProgressBar::new(1));
                let style = ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} obs | {msg} | ETA {eta}")
                    .expect("a valid template")
                    .progress_chars("=> ");
                bar.set_style(style);
                bar.set_prefix(label.to_string());
                bar.set_message(format!("0/{instances} instances done"));
                Some(bar)
            }
            Display::Plain => {
                Console::Err.line(&format!("start {label}: {instances} instance(s)"));
                None
            }
        };
        JobProgress { bar, label: label.to_string(), instances }
    }
}

impl JobProgress {
    /// Updates the bar from the instances' counters.
    pub fn update(&self, finished: usize, counters: &[&Counter]) {
        if let Some(bar) = &self.bar {
            let total: u64 = counters.iter().map(|c| c.total.load(Ordering::Relaxed)).sum();
            let done: u64 = counters.iter().map(|c| c.done.load(Ordering::Relaxed)).sum();
            // Until the first observation lines arrive, an empty bar rather than a full one.
            bar.set_length(total.max(done).max(1));
            bar.set_position(done);
            bar.set_message(format!("{finished}/{} instances done", self.instances));
        }
    }

    /// Reports one instance's end.
    pub fn instance(&self, jr_id: u32, vcd: &str, what: &str) {
        let text = format!("  {} instance {jr_id} (device {vcd}): {what}", self.label);
        match &self.bar {
            Some(bar) => bar.println(text),
            None => Console::Err.line(&text),
        }
    }

    /// A handle that prints instance `jr_id`'s output lines with its prefix
    /// (`[label 1/2] `) above the bars, or on stderr.
    pub fn echo(&self, jr_id: u32) -> Echo {
        Echo { bar: self.bar.clone(), prefix: format!("[{} {}/{}] ", self.label, jr_id, self.instances) }
    }

    /// Removes the bar.
    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Prints one instance's output lines, prefixed, without breaking the bars.
#[derive(Clone, Debug)]
pub struct Echo {
    bar: Option<ProgressBar>,
    prefix: String,
}

impl Echo {
    /// Prints `line` with the instance's prefix on stderr.
    pub fn line(&self, line: &str) {
        let text = format!("{}{line}", self.prefix);
        match &self.bar {
            Some(bar) => bar.println(text),
            None => Console::Err.line(&text),
        }
    }

    /// The prefix, `[label 1/2] `.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }
}
