//! Where an instance's output lines go, whatever runs it: its log file, its
//! progress counter, the announced report path, the tail of its stderr kept
//! for a failure message, and (for container instances) the terminal with
//! the instance's prefix; where a checkpointing worker stands, and when it
//! resumed from a checkpoint.

use super::progress::{Counter, Echo};
use crate::runtime::{Output, Stream};
use crate::telemetry::SamplerSink;
use mlb_record::contract::{Position, WorkerLine};
use std::collections::VecDeque;
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Lines of stderr kept for a failure message.
const TAIL_LINES: usize = 5;

/// The output of one instance. Shared by the threads that read it.
#[derive(Debug)]
pub struct Lines {
    counter: Arc<Counter>,
    echo: Option<Echo>,
    sampler: Option<SamplerSink>,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    log: File,
    report: Option<PathBuf>,
    tail: VecDeque<String>,
    position: Option<Position>,
    resumed: Option<(Position, Instant)>,
}

impl Lines {
    /// Output going to `log`, progress to `counter`, and, when `echo` is
    /// given, every line to the terminal with its prefix.
    pub fn new(log: File, counter: Arc<Counter>, echo: Option<Echo>) -> Self {
        let state =
            State { log, report: None, tail: VecDeque::with_capacity(TAIL_LINES), position: None, resumed: None };
        Lines { counter, echo, sampler: None, state: Mutex::new(state) }
    }

    /// The same, the window's edges and the runtime's start going to `sampler`.
    pub fn with_sampler(self, sampler: Option<SamplerSink>) -> Self {
        Lines { sampler, ..self }
    }

    /// The report the instance announced (`report: PATH`), if any.
    pub fn report(&self) -> Option<PathBuf> {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).report.clone()
    }

    /// Where the worker last said it stood (`position:` or `resumed:`).
    pub fn position(&self) -> Option<Position> {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).position
    }

    /// The checkpoint it resumed from, and when it said so.
    pub fn resumed(&self) -> Option<(Position, Instant)> {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).resumed
    }

    /// Adds a line of the launcher's own to the log: `mlb: TEXT`.
    pub fn note(&self, text: &str) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(state.log, "mlb: {text}");
    }

    /// The last lines of its stderr.
    pub fn stderr_tail(&self) -> String {
        Vec::from(self.state.lock().unwrap_or_else(|e| e.into_inner()).tail.clone()).join("\n")
    }
}

impl Output for Lines {
    fn line(&self, stream: Stream, line: &str) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(state.log, "{line}");
        match stream {
            Stream::Stdout => match WorkerLine::parse(line) {
                Some(WorkerLine::Report(path)) => state.report = Some(path),
                Some(WorkerLine::Progress { done, total, .. }) => self.counter.set(done, total),
                Some(WorkerLine::Window(edge)) => {
                    if let Some(sampler) = &self.sampler {
                        sampler.edge(edge);
                    }
                }
                Some(WorkerLine::Position(at)) => state.position = Some(at),
                Some(WorkerLine::Resumed(at)) => {
                    state.position = Some(at);
                    state.resumed = Some((at, Instant::now()));
                }
                None => {}
            },
            Stream::Stderr => {
                if state.tail.len() == TAIL_LINES {
                    state.tail.pop_front();
                }
                state.tail.push_back(line.to_string());
            }
        }
        drop(state);
        if let Some(echo) = &self.echo {
            echo.line(line);
        }
    }

    fn started(&self, pid: u32, id: &str) {
        if let Some(sampler) = &self.sampler {
            sampler.started(pid, id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn lines_feed_the_log_the_counter_the_report_and_the_tail() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.log");
        let counter = Arc::new(Counter::default());
        let lines = Lines::new(File::create(&path).unwrap(), Arc::clone(&counter), None);
        crate::runtime::pump(
            &lines,
            Stream::Stdout,
            &b"resumed: step 4 items 8\n[  2/ 5] | ETA: 0.1 min | Batch Loss 1.0\nposition: step 6 items 12\nreport: /r/a b.json\n[oops]\n[  4/ 9] not a progress line\n"[..],
        );
        for i in 0..7 {
            lines.line(Stream::Stderr, &format!("e{i}"));
        }
        assert_eq!(counter.done.load(Ordering::Relaxed), 2);
        assert_eq!(counter.total.load(Ordering::Relaxed), 5);
        assert_eq!(lines.report(), Some(PathBuf::from("/r/a b.json")));
        assert_eq!(lines.stderr_tail(), "e2\ne3\ne4\ne5\ne6");
        assert_eq!(lines.position(), Some(Position { step: 6, items: 12 }));
        assert_eq!(lines.resumed().map(|(at, _)| at), Some(Position { step: 4, items: 8 }));
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 13);
    }
}
