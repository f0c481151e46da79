//! The lines a worker prints on stdout that the launcher reads.
//!
//! After each observation a progress line,
//! `[  3/ 20] | ETA:   0.87 min | Batch Loss   0.1234` (`-` in place of the
//! loss when no step reported one); once the report is written,
//! `report: PATH`. Users' scripts and the original suite's log readers parse
//! both, so their format is fixed byte for byte. At both edges of the timed
//! window, `window: start T` and `window: end T ITEMS` ([`Edge`]), which the
//! launcher's telemetry is scoped to. A worker that checkpoints
//! (docs/faults.md) also prints `position: step N items M` after each
//! observation and `resumed: step N items M` once it has restored a
//! checkpoint: the launcher counts the work a failure lost from them, and
//! the time a restart took. Anything else on stdout is the workload's own
//! output, which the launcher only logs.

use super::window::Edge;
use std::fmt;
use std::path::PathBuf;

/// What starts the report line.
pub const REPORT_PREFIX: &str = "report: ";
/// What starts a window line.
pub const WINDOW_PREFIX: &str = "window: ";
/// What starts a position line.
pub const POSITION_PREFIX: &str = "position: ";
/// What starts a resumed line.
pub const RESUMED_PREFIX: &str = "resumed: ";

/// A line of the worker's stdout protocol.
#[derive(Clone, Debug, PartialEq)]
pub enum WorkerLine {
    /// `report: PATH`: the report was written at `PATH`. A path is printed
    /// as [`Path::display`](std::path::Path::display) writes it (a path that
    /// is not UTF-8 loses its odd bytes; one holding a line break cannot be
    /// announced on one line).
    Report(PathBuf),
    /// An edge of the timed window.
    Window(Edge),
    /// An observation finished.
    Progress {
        /// Observations done, 1-based.
        done: u64,
        /// Observations in all.
        total: u64,
        /// Estimated minutes left (printed with two decimals).
        eta_minutes: f64,
        /// The last step loss, if any step reported one (four decimals).
        loss: Option<f64>,
    },
    /// Where a checkpointing worker stands after an observation.
    Position(Position),
    /// A checkpointing worker restored the checkpoint taken at this
    /// position and goes on from it.
    Resumed(Position),
}

/// Steps run and items processed since the training started (a restored
/// run counts the steps before its checkpoint).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Position {
    /// Steps run.
    pub step: u64,
    /// Items processed by them.
    pub items: u64,
}

impl Position {
    /// Reads `step N items M`.
    fn parse(text: &str) -> Option<Position> {
        let rest = text.strip_prefix("step ")?;
        let (step, items) = rest.split_once(" items ")?;
        Some(Position { step: step.parse().ok()?, items: items.parse().ok()? })
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "step {} items {}", self.step, self.items)
    }
}

impl WorkerLine {
    /// The progress line after observation `done` of `total`, with
    /// `eta_seconds` left.
    pub fn progress(done: u64, total: u64, eta_seconds: f64, loss: Option<f64>) -> Self {
        WorkerLine::Progress { done, total, eta_minutes: eta_seconds / 60.0, loss }
    }

    /// Reads one line (without its line break); `None` when it is neither a
    /// report nor a progress line. Spacing inside a progress line may vary.
    pub fn parse(line: &str) -> Option<WorkerLine> {
        if let Some(path) = line.strip_prefix(REPORT_PREFIX) {
            return (!path.is_empty()).then(|| WorkerLine::Report(PathBuf::from(path)));
        }
        if let Some(edge) = line.strip_prefix(WINDOW_PREFIX) {
            return Edge::parse(edge).map(WorkerLine::Window);
        }
        if let Some(at) = line.strip_prefix(POSITION_PREFIX) {
            return Position::parse(at).map(WorkerLine::Position);
        }
        if let Some(at) = line.strip_prefix(RESUMED_PREFIX) {
            return Position::parse(at).map(WorkerLine::Resumed);
        }
        let (counts, rest) = line.strip_prefix('[')?.split_once(']')?;
        let (done, total) = counts.split_once('/')?;
        let (done, total) = (done.trim().parse().ok()?, total.trim().parse().ok()?);
        let rest = after(rest, "|")?;
        let rest = after(rest, "ETA:")?;
        let (eta, rest) = rest.trim_start().split_once(char::is_whitespace)?;
        let eta_minutes = eta.parse().ok()?;
        let rest = after(after(after(rest, "min")?, "|")?, "Batch Loss")?;
        let loss = match rest.trim() {
            "-" => None,
            loss => Some(loss.parse().ok()?),
        };
        Some(WorkerLine::Progress { done, total, eta_minutes, loss })
    }
}

/// `text` after `word` and the spaces before it.
fn after<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    text.trim_start().strip_prefix(word)
}

impl fmt::Display for WorkerLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkerLine::Report(path) => write!(f, "{REPORT_PREFIX}{}", path.display()),
            WorkerLine::Window(edge) => write!(f, "{WINDOW_PREFIX}{edge}"),
            WorkerLine::Position(at) => write!(f, "{POSITION_PREFIX}{at}"),
            WorkerLine::Resumed(at) => write!(f, "{RESUMED_PREFIX}{at}"),
            WorkerLine::Progress { done, total, eta_minutes, loss } => {
                write!(f, "[{done:>3}/{total:>3}] | ETA: {eta_minutes:>6.2} min | Batch Loss ")?;
                match loss {
                    Some(loss) => write!(f, "{loss:>8.4}"),
                    None => write!(f, "{:>8}", "-"),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(line: &str) -> WorkerLine {
        let parsed = WorkerLine::parse(line).unwrap_or_else(|| panic!("{line:?} does not parse"));
        assert_eq!(parsed.to_string(), line, "printed back byte for byte");
        parsed
    }

    #[test]
    fn progress_lines_print_as_the_original_suite_and_read_back() {
        let line = WorkerLine::progress(3, 20, 52.2, Some(0.12344));
        assert_eq!(line.to_string(), "[  3/ 20] | ETA:   0.87 min | Batch Loss   0.1234");
        assert_eq!(
            WorkerLine::progress(3, 20, 52.2, None).to_string(),
            "[  3/ 20] | ETA:   0.87 min | Batch Loss        -"
        );
        assert_eq!(
            round_trip("[  3/ 20] | ETA:   0.87 min | Batch Loss   0.1234"),
            WorkerLine::Progress { done: 3, total: 20, eta_minutes: 0.87, loss: Some(0.1234) }
        );
        round_trip("[  3/ 20] | ETA:   0.87 min | Batch Loss        -");
        round_trip("[1000/2000] | ETA: 1234.50 min | Batch Loss 123456.7890");
        round_trip("[ 12/ 12] | ETA:   0.00 min | Batch Loss  -3.5000");
        // Values that print exactly come back exactly.
        let exact = WorkerLine::Progress { done: 7, total: 9, eta_minutes: 0.25, loss: Some(-1.5) };
        assert_eq!(WorkerLine::parse(&exact.to_string()), Some(exact));
    }

    #[test]
    fn spacing_may_vary() {
        let parsed = WorkerLine::parse("[2/5] |ETA: 0.1 min|Batch Loss 1.0");
        assert_eq!(parsed, Some(WorkerLine::Progress { done: 2, total: 5, eta_minutes: 0.1, loss: Some(1.0) }));
    }

    #[test]
    fn report_lines_with_odd_paths() {
        for path in [
            "/out/s.n.R0.D0.20260101-000000-000000.json",
            "/my out/a b.json",
            "/résultats/ü 試験.json",
            "rel.json",
            " lead",
        ] {
            let line = format!("report: {path}");
            assert_eq!(round_trip(&line), WorkerLine::Report(PathBuf::from(path)));
            assert_eq!(WorkerLine::Report(PathBuf::from(path)).to_string(), line);
        }
    }

    #[test]
    fn window_lines() {
        let start = round_trip("window: start 1234.500000");
        assert_eq!(start, WorkerLine::Window(Edge::Start { at: 1234.5 }));
        let end = round_trip("window: end 1240.250000 6400");
        assert_eq!(end, WorkerLine::Window(Edge::End { at: 1240.25, items: 6400 }));
    }

    #[test]
    fn position_and_resumed_lines() {
        let at = Position { step: 120, items: 7680 };
        assert_eq!(round_trip("position: step 120 items 7680"), WorkerLine::Position(at));
        assert_eq!(round_trip("resumed: step 120 items 7680"), WorkerLine::Resumed(at));
    }

    #[test]
    fn anything_else_is_none() {
        for line in [
            "",
            "report:",
            "report: ",
            "Report: /x.json",
            " report: /x.json",
            "[oops]",
            "[  3/ 20]",
            "[  3/ x] | ETA:   0.87 min | Batch Loss   0.1234",
            "[  3/ 20] | ETA:   soon min | Batch Loss   0.1234",
            "[  3/ 20] | ETA:   0.87 min | Batch Loss",
            "[  3/ 20] | ETA:   0.87 min | Batch Loss   0.1234 extra",
            "[  3/ 20] | ETA:   0.87 h | Batch Loss   0.1234",
            "epoch 3: loss 0.5",
            "window: begin 1.0",
            "window: end 1.0",
            "position: step 1",
            "position: step x items 2",
            "resumed: 1 2",
        ] {
            assert_eq!(WorkerLine::parse(line), None, "{line:?}");
        }
    }
}
