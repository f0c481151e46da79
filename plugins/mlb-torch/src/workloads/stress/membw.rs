//! membw: device memory bandwidth, as STREAM measures it. Each unit of work
//! is a copy (`b = a`, 2 float32 arrays of `elements` moved) then a triad
//! (`a = b + 3 c`, 3 arrays moved), each waited for and timed; a step
//! repeats it for `step_seconds` (see the module [`super`]). Item: a copy
//! and triad. Reports `copy_gbs`, `triad_gbs` and `bandwidth_gbs` (the
//! triad's), in 10^9 bytes per second: the median of the steps' after the
//! first.
//!
//! `elements: 0` picks 2^28 on a GPU (three arrays of 1 GiB) and 2^24 on the
//! CPU (three of 64 MiB: past the last-level caches of today's CPUs).

use super::{median_past_first, TimedSteps};
use crate::data::DataSource;
use crate::{Runtime, TorchWorkload};
use mlb_plugin::Step;
use serde_json::{Map, Value};
use std::time::{Duration, Instant};
use tch::{Kind, Tensor};

mlb_plugin::workload_args! {
    /// The arguments of membw.
    pub struct Args {
        repeat = 10, number = 1, skip = 1;
        /// float32 elements per array (0: 2^28 on a GPU, 2^24 on the CPU).
        pub elements: u64 = 0,
        /// Seconds each step runs copies and triads for.
        pub step_seconds: f64 = 1.0,
    }
}

/// Settings of membw: its arguments checked.
#[derive(Debug, Clone)]
pub struct Settings {
    elements: i64,
    steps: f64,
}

/// Bytes moved and time spent by one kernel in a step.
#[derive(Debug, Default, Clone, Copy)]
struct Moved {
    bytes: f64,
    time: Duration,
}

impl Moved {
    fn gbs(&self) -> Option<f64> {
        let s = self.time.as_secs_f64();
        (s > 0.0).then(|| self.bytes / s / 1e9)
    }
}

/// The arrays and the device they live on.
struct Arrays {
    runtime: Runtime,
    a: Tensor,
    b: Tensor,
    c: Tensor,
    /// The triad's scalar, 3, as a tensor of no dimension.
    three: Tensor,
}

impl Arrays {
    /// Runs `kernel` and waits for the device: its time.
    fn timed(
        &mut self,
        kernel: impl FnOnce(&mut Self) -> Result<(), tch::TchError>,
    ) -> Result<Duration, tch::TchError> {
        let start = Instant::now();
        kernel(self)?;
        self.runtime.sync();
        Ok(start.elapsed())
    }
}

/// The membw workload.
pub struct Membw {
    elements: i64,
    arrays: Arrays,
    steps: TimedSteps,
    /// The copy's and the triad's GB/s of each step.
    rates: Vec<(f64, f64)>,
    data: DataSource,
}

impl TorchWorkload for Membw {
    const NAME: &'static str = "membw";
    const DESCRIPTION: &'static str = "memory bandwidth (STREAM copy and triad) for a duration: mlb burn";
    type Args = Args;
    type Settings = Settings;

    fn parse(args: Args) -> mlb_plugin::Result<Settings> {
        TimedSteps::new(args.step_seconds)?;
        Ok(Settings { elements: args.elements as i64, steps: args.step_seconds })
    }

    fn build(settings: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
        let device = rt.device();
        let elements = match settings.elements {
            0 if device.is_cuda() => 1 << 28,
            0 => 1 << 24,
            n => n,
        };
        let draw = || Tensor::f_rand([elements], (Kind::Float, device));
        let three = Tensor::f_full([], 3.0, (Kind::Float, device))?;
        let arrays = Arrays { runtime: *rt, a: draw()?, b: draw()?, c: draw()?, three };
        Ok(Membw {
            elements,
            arrays,
            steps: TimedSteps::new(settings.steps)?,
            rates: Vec::new(),
            data: DataSource::Synthetic { requested: None },
        })
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let bytes = 4.0 * self.elements as f64;
        let (mut copy, mut triad) = (Moved::default(), Moved::default());
        let mut failed = None;
        let arrays = &mut self.arrays;
        let units = self.steps.step(|| {
            let kernels = arrays.timed(|x| x.b.f_copy_(&x.a)).and_then(|copied| {
                let added = arrays.timed(|x| x.b.f_addcmul_out(&x.a, &x.c, &x.three).map(drop))?;
                Ok((copied, added))
            });
            match kernels {
                Ok((copied, added)) => {
                    copy.bytes += 2.0 * bytes;
                    copy.time += copied;
                    triad.bytes += 3.0 * bytes;
                    triad.time += added;
                }
                Err(e) => {
                    failed.get_or_insert(e);
                }
            }
        });
        if let Some(e) = failed {
            return Err(e.into());
        }
        if let (Some(copy), Some(triad)) = (copy.gbs(), triad.gbs()) {
            self.rates.push((copy, triad));
        }
        Ok(Step::items(units))
    }

    fn data(&self) -> &DataSource {
        &self.data
    }

    fn report(&self, out: &mut Map<String, Value>) {
        out.insert("elements".into(), self.elements.into());
        let copy = median_past_first(&self.rates.iter().map(|r| r.0).collect::<Vec<_>>());
        let triad = median_past_first(&self.rates.iter().map(|r| r.1).collect::<Vec<_>>());
        if let (Some(copy), Some(triad)) = (copy, triad) {
            out.insert("copy_gbs".into(), copy.into());
            out.insert("triad_gbs".into(), triad.into());
            out.insert("bandwidth_gbs".into(), triad.into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugin::settings;

    #[test]
    fn the_triad_is_computed_and_its_bandwidth_reported() {
        let config = r#"{"elements": 4096, "step_seconds": 0.02}"#;
        let mut membw = Membw::build(settings::<Membw>(config).unwrap(), &Runtime::cpu(1).unwrap()).unwrap();
        for _ in 0..2 {
            assert!(membw.step().unwrap().items > 1);
        }
        let Arrays { a, b, c, .. } = &membw.arrays;
        let expected = b + c * 3.0;
        assert!(a.allclose(&expected, 1e-6, 1e-6, false), "a = b + 3c after a triad");
        let mut out = Map::new();
        membw.report(&mut out);
        assert_eq!(out["bandwidth_gbs"], out["triad_gbs"]);
        assert!(out["copy_gbs"].as_f64().unwrap() > 0.0, "{out:?}");
    }
}
