//! What one read of a source gives: gauges (values at that instant),
//! counters (running totals, scoped to the window by difference) and, for a
//! GPU, its throttle reasons ([`reasons`]). The telemetry's sources (the
//! slot's files, each GPU vendor's reader) all give a [`Reading`]; this
//! module imports nothing of the crate, so that both build on it.
//!
//! [`input`] reads the other kind of source mlb is given, a user's input
//! file (jobs file, target table, image map), with a bound on its size.

pub mod files;
pub mod input;
pub mod reasons;

pub use files::{keyed, number};
pub use input::{read_input, read_limited, InputError, INPUT_LIMIT};

/// A running total read at one instant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Counter {
    /// Its name in the report (`cpu_ns`, `energy_mj`).
    pub name: &'static str,
    /// The value read.
    pub value: u64,
    /// The value after which it starts again from 0 (`max_energy_range_uj`
    /// of a powercap zone, plus one); `None`: it does not wrap.
    pub wraps_at: Option<u64>,
    /// The gauge its rate of change gives, and the factor from counter units
    /// per second to that gauge's unit (`cpu_ns` gives `cpu_busy_cores`, 1e-9).
    pub rate: Option<(&'static str, f64)>,
}

/// One read of one source.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reading {
    /// Values at the instant of the read, by name (the unit ends the name).
    pub gauges: Vec<(&'static str, f64)>,
    /// Running totals.
    pub counters: Vec<Counter>,
    /// Throttle reasons active at the instant (a bit each), when the source has them.
    pub reasons: Option<u64>,
}

impl Reading {
    /// Adds gauge `name` when it was read.
    pub fn gauge(&mut self, name: &'static str, value: Option<f64>) {
        if let Some(v) = value.filter(|v| v.is_finite()) {
            self.gauges.push((name, v));
        }
    }

    /// Adds counter `name` (not wrapping, no rate) when it was read.
    pub fn counter(&mut self, name: &'static str, value: Option<u64>) {
        if let Some(value) = value {
            self.counters.push(Counter { name, value, wraps_at: None, rate: None });
        }
    }

    /// Adds gauge `name` from `read` (called only then) when no other
    /// source gave it already.
    pub fn gauge_unless_read(&mut self, name: &'static str, read: impl FnOnce() -> Option<f64>) {
        if self.gauge_of(name).is_none() {
            self.gauge(name, read());
        }
    }

    /// Adds counter `name` from `read` (called only then) when no other
    /// source gave it already.
    pub fn counter_unless_read(&mut self, name: &'static str, read: impl FnOnce() -> Option<u64>) {
        if self.counter_of(name).is_none() {
            self.counter(name, read());
        }
    }

    /// The gauge `name`, if read.
    pub fn gauge_of(&self, name: &str) -> Option<f64> {
        self.gauges.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
    }

    /// The counter `name`, if read.
    pub fn counter_of(&self, name: &str) -> Option<&Counter> {
        self.counters.iter().find(|c| c.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gauges_read_and_finite_only() {
        let mut r = Reading::default();
        r.gauge("x", Some(f64::NAN));
        r.gauge("y", Some(1.5));
        r.counter("c", Some(7));
        assert_eq!((r.gauge_of("x"), r.gauge_of("y"), r.counter_of("c").map(|c| c.value)), (None, Some(1.5), Some(7)));
    }
}
