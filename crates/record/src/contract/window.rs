//! The timed window: the span of an instance's timed observations (its
//! warm-up excluded), which every telemetry figure is scoped to.
//!
//! The worker reads the clock at both edges and tells the launcher through
//! its stdout protocol ([`WorkerLine::Window`](super::WorkerLine::Window)).
//! Both sides read the same clock, `CLOCK_MONOTONIC`: it is shared by every
//! process of a host, containers included (they get no time namespace), and
//! never jumps, so the edges and the launcher's samples line up exactly
//! whatever the delay of the pipe between them.

use std::fmt;

/// One edge of the timed window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Edge {
    /// Timing starts: the first timed observation begins (after its sync).
    Start {
        /// [`now`] at that moment, seconds.
        at: f64,
    },
    /// Timing ends: the last observation ended (after its sync).
    End {
        /// [`now`] at that moment, seconds.
        at: f64,
        /// Items processed by the timed observations.
        items: u64,
    },
}

impl Edge {
    /// When the edge was, seconds of `CLOCK_MONOTONIC`.
    pub fn at(&self) -> f64 {
        match *self {
            Edge::Start { at } | Edge::End { at, .. } => at,
        }
    }
}

impl fmt::Display for Edge {
    /// `start 12345.678901` or `end 12350.123456 12800` (the items).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Edge::Start { at } => write!(f, "start {at:.6}"),
            Edge::End { at, items } => write!(f, "end {at:.6} {items}"),
        }
    }
}

impl Edge {
    /// Reads what [`Display`](fmt::Display) writes.
    pub fn parse(text: &str) -> Option<Edge> {
        let mut words = text.split_whitespace();
        let kind = words.next()?;
        let at: f64 = words.next()?.parse().ok().filter(|t: &f64| t.is_finite() && *t >= 0.0)?;
        let edge = match kind {
            "start" => Edge::Start { at },
            "end" => Edge::End { at, items: words.next()?.parse().ok()? },
            _ => return None,
        };
        words.next().is_none().then_some(edge)
    }
}

/// Seconds of `CLOCK_MONOTONIC`, the clock both sides stamp with.
pub fn now() -> f64 {
    let t = nix::time::clock_gettime(nix::time::ClockId::CLOCK_MONOTONIC).expect("CLOCK_MONOTONIC is always readable");
    t.tv_sec() as f64 + t.tv_nsec() as f64 * 1e-9
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_print_and_read_back() {
        let start = Edge::Start { at: 12.5 };
        assert_eq!(start.to_string(), "start 12.500000");
        assert_eq!(Edge::parse(&start.to_string()), Some(start));
        let end = Edge::End { at: 3.25, items: 640 };
        assert_eq!(end.to_string(), "end 3.250000 640");
        assert_eq!(Edge::parse(&end.to_string()), Some(end));
        for bad in ["", "start", "start x", "start -1", "start NaN", "end 1.0", "end 1.0 -3", "start 1 2", "stop 1"] {
            assert_eq!(Edge::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_clock_moves_forward() {
        let (a, b) = (now(), now());
        assert!(a > 0.0 && b >= a);
    }
}
