//! The stress workloads of `mlb burn` (docs/burn.md): [`gemm`] (matrix
//! product TFLOPS), [`membw`] (memory bandwidth, copy and triad) and
//! [`allreduce`] (all-reduce bus bandwidth across a group's ranks, with the
//! [`link`] it crossed).
//!
//! They run for a duration rather than an amount of work: every step repeats
//! its unit of work (one product, one copy and triad) until `step_seconds`
//! have passed on the workload's own clock, waiting for the device after each
//! unit, and reports the units done as its items. An instance thus lasts
//! about `repeat * number * step_seconds` (`mlb burn --duration` sets
//! `repeat`), and the worker's throughput is units per second. Each workload
//! also reports its figure (`tflops`, `bandwidth_gbs`) as the median over the
//! steps after the first (the warm-up).

pub mod allreduce;
pub mod gemm;
pub mod link;
pub mod membw;
pub mod memory;

pub use allreduce::Allreduce;
pub use gemm::Gemm;
pub use membw::Membw;

use std::time::{Duration, Instant};

/// Steps of a fixed duration: runs units of work and keeps what each step
/// measured.
#[derive(Debug)]
pub struct TimedSteps {
    length: Duration,
    /// Units per second of each step so far.
    rates: Vec<f64>,
}

impl TimedSteps {
    /// Steps of `seconds` each (refused unless finite and above zero).
    pub fn new(seconds: f64) -> mlb_plugin::Result<Self> {
        if !(seconds.is_finite() && seconds > 0.0) {
            return Err(format!("step_seconds must be a number above 0, not {seconds}").into());
        }
        Ok(TimedSteps { length: Duration::from_secs_f64(seconds), rates: Vec::new() })
    }

    /// Runs `unit` (which waits for the device before it returns) until the
    /// step's time is up, at least once; returns the units done.
    pub fn step(&mut self, mut unit: impl FnMut()) -> u64 {
        let start = Instant::now();
        let mut units = 0u64;
        loop {
            unit();
            units += 1;
            if start.elapsed() >= self.length {
                break;
            }
        }
        self.rates.push(units as f64 / start.elapsed().as_secs_f64());
        units
    }

    /// The median units per second of the steps after the first (of every
    /// step when there is only one); `None` before any step.
    pub fn median_rate(&self) -> Option<f64> {
        median_past_first(&self.rates)
    }
}

/// The median of `rates` past the first (a warm-up step's), or the first
/// alone; `None` for none.
pub fn median_past_first(rates: &[f64]) -> Option<f64> {
    let mut rates: Vec<f64> = rates.get(1..).filter(|r| !r.is_empty()).unwrap_or(rates).to_vec();
    rates.sort_by(f64::total_cmp);
    let mid = rates.len() / 2;
    match rates.len() {
        0 => None,
        n if n % 2 == 1 => Some(rates[mid]),
        _ => Some((rates[mid - 1] + rates[mid]) / 2.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_lasts_its_time_and_counts_its_units() {
        let mut steps = TimedSteps::new(0.05).unwrap();
        let start = Instant::now();
        let units = steps.step(|| std::thread::sleep(Duration::from_millis(10)));
        assert!(start.elapsed() >= Duration::from_millis(50));
        assert!((4..=6).contains(&units), "{units} units of 10 ms in 50 ms");
        let rate = steps.median_rate().unwrap();
        assert!((60.0..=105.0).contains(&rate), "about 100 units/s, got {rate}");
    }

    #[test]
    fn the_median_leaves_the_warm_up_out() {
        let mut steps = TimedSteps::new(1.0).unwrap();
        steps.rates = vec![1.0, 10.0, 30.0, 20.0];
        assert_eq!(steps.median_rate(), Some(20.0));
        assert_eq!((median_past_first(&[4.0]), median_past_first(&[])), (Some(4.0), None));
        assert!(TimedSteps::new(0.0).is_err() && TimedSteps::new(f64::NAN).is_err());
    }
}
