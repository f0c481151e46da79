//! Progress of running job configs: bars (instances, observations, ETA) on
//! a terminal, plain lines otherwise. Everything goes to stderr; stdout
//! carries only the result lines.

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
    /// Reads a worker progress line (`[  3/ 20] | ...`); other lines are ignored.
    pub fn observe(&self, line: &str) {
        let Some(inner) = line.strip_prefix('[').and_then(|r| r.split_once(']')).map(|(i, _)| i) else {
            return;
        };
        if let Some((a, b)) = inner.split_once('/') {
            if let (Ok(a), Ok(b)) = (a.trim().parse(), b.trim().parse()) {
                self.done.store(a, Ordering::Relaxed);
                self.total.store(b, Ordering::Relaxed);
            }
        }
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
            Display::Plain => eprintln!("{text}"),
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
                eprintln!("start {label}: {instances} instance(s)");
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
            None => eprintln!("{text}"),
        }
    }

    /// Removes the bar.
    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_read_worker_lines() {
        let c = Counter::default();
        c.observe("[  3/ 20] | ETA:   0.87 min | Batch Loss   0.1234");
        assert_eq!((c.done.load(Ordering::Relaxed), c.total.load(Ordering::Relaxed)), (3, 20));
        c.observe("report: /x/y.json");
        c.observe("[oops]");
        assert_eq!(c.done.load(Ordering::Relaxed), 3);
    }
}
