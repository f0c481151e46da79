//! allreduce: the bus bandwidth of all-reduces over Gloo, as nccl-tests
//! measures it, across the ranks of a `"group": "ddp"` job (the slots of a
//! node, or of every node under `--slurm`). Each step sums float32 tensors
//! of every size of `sizes_mb` (MB, 10^6 bytes) over the ranks, one size
//! after the other, each for its share of `step_seconds`; the ranks agree
//! when a size's time is up (a one-element all-reduce after each one, left
//! out of the timing), so that they run the same collectives. Item: an
//! all-reduce.
//!
//! Reports per size `algbw_gbs` (bytes / time) and `busbw_gbs` (algbw x
//! 2(n-1)/n for n ranks, what each rank's link carries in a ring), the
//! median of the steps after the first; `busbw_gbs` of the report is the
//! largest size's. Beside them: the interface the traffic crossed and its
//! nominal rate ([`super::link`]). A group of one rank crosses no link and
//! reports no bandwidth.

use super::link::Link;
use super::median_past_first;
use crate::data::DataSource;
use crate::dist::{self, DataParallel};
use crate::{Runtime, TorchWorkload};
use mlb_plugin::Step;
use serde_json::{json, Map, Value};
use std::time::{Duration, Instant};
use tch::{Device, Kind, Tensor};

mlb_plugin::workload_args! {
    /// The arguments of allreduce.
    pub struct Args {
        repeat = 10, number = 1, skip = 1;
        /// Sizes of the tensors summed, in MB, separated by commas.
        pub sizes_mb: String = "1,25,100",
        /// Seconds each step runs all-reduces for, shared by the sizes.
        pub step_seconds: f64 = 1.0,
        /// Bound of the rendezvous and of every collective, in seconds.
        pub timeout: Option<f64> = 120.0,
        /// The network interface Gloo binds (else `GLOO_SOCKET_IFNAME`).
        pub interface: Option<String>,
    }
}

/// Settings of allreduce: its arguments checked.
#[derive(Debug, Clone)]
pub struct Settings {
    sizes_mb: Vec<f64>,
    step: Duration,
    group: dist::Settings,
}

/// The sizes of `text`: numbers of MB above zero, separated by commas.
pub fn sizes(text: &str) -> mlb_plugin::Result<Vec<f64>> {
    let sizes: Vec<f64> = text
        .split(',')
        .map(|s| match s.trim().parse::<f64>() {
            Ok(mb) if mb.is_finite() && mb > 0.0 => Ok(mb),
            _ => Err(format!("argument `sizes_mb`: `{}` is not a number of MB above 0 (`1,25,100`)", s.trim())),
        })
        .collect::<Result<_, _>>()?;
    Ok(sizes)
}

/// What a group of `ranks` moves per rank for `algbw`: the bus bandwidth of
/// nccl-tests, `algbw x 2(n-1)/n`.
pub fn bus_bandwidth(algbw: f64, ranks: usize) -> f64 {
    let n = ranks as f64;
    algbw * 2.0 * (n - 1.0) / n
}

/// One size's tensor and the algorithm bandwidth of each step.
struct Size {
    mb: f64,
    tensor: Tensor,
    rates: Vec<f64>,
}

/// The allreduce workload.
pub struct Allreduce {
    /// The group (its gradient buckets unused).
    dp: DataParallel,
    sizes: Vec<Size>,
    step: Duration,
    /// The one-element tensor the ranks agree on stopping with.
    done: Tensor,
    link: Link,
    data: DataSource,
}

impl Allreduce {
    /// All-reduces of `sizes[at]` until its share of the step is up on
    /// every rank: their number, and the algorithm bandwidth in GB/s.
    fn run(&mut self, at: usize, share: Duration) -> mlb_plugin::Result<u64> {
        let size = &mut self.sizes[at];
        let bytes = size.mb * 1e6;
        self.dp.group().barrier()?;
        let (start, mut spent, mut done) = (Instant::now(), Duration::ZERO, 0u64);
        loop {
            let one = Instant::now();
            self.dp.group().all_reduce_sum(&mut size.tensor)?;
            spent += one.elapsed();
            done += 1;
            let _ = self.done.f_fill_(if start.elapsed() >= share { 1.0 } else { 0.0 })?;
            self.dp.group().all_reduce_sum(&mut self.done)?;
            if self.done.double_value(&[0]) > 0.0 {
                break;
            }
        }
        size.rates.push(bytes * done as f64 / spent.as_secs_f64() / 1e9);
        Ok(done)
    }
}

impl TorchWorkload for Allreduce {
    const NAME: &'static str = "allreduce";
    const DESCRIPTION: &'static str = "all-reduce bus bandwidth over Gloo across a group's ranks: mlb burn";
    type Args = Args;
    type Settings = Settings;

    fn parse(args: Args) -> mlb_plugin::Result<Settings> {
        let step = args.step_seconds;
        if !(step.is_finite() && step > 0.0) {
            return Err(format!("step_seconds must be a number above 0, not {step}").into());
        }
        let group = dist::Settings::new(args.timeout, None, args.interface, Some("gloo"), Some(false))?;
        Ok(Settings { sizes_mb: sizes(&args.sizes_mb)?, step: Duration::from_secs_f64(step), group })
    }

    fn build(settings: Settings, _rt: &Runtime) -> mlb_plugin::Result<Self> {
        // Gloo's collectives take CPU tensors, whatever the slot's device.
        let dp = settings.group.join(Device::Cpu)?;
        let interface =
            settings.group.interface.clone().or_else(|| std::env::var(dist::settings::GLOO_SOCKET_IFNAME).ok());
        let link = Link::of(&dp.group().rendezvous().master_addr, interface.as_deref().filter(|i| !i.is_empty()));
        let sizes = settings
            .sizes_mb
            .iter()
            .map(|&mb| {
                let tensor = Tensor::f_zeros([(mb * 1e6 / 4.0).ceil() as i64], (Kind::Float, Device::Cpu))?;
                Ok(Size { mb, tensor, rates: Vec::new() })
            })
            .collect::<Result<Vec<_>, tch::TchError>>()?;
        Ok(Allreduce {
            dp,
            sizes,
            step: settings.step,
            done: Tensor::f_zeros([1], (Kind::Float, Device::Cpu))?,
            link,
            data: DataSource::Synthetic { requested: None },
        })
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let share = self.step / self.sizes.len() as u32;
        let mut units = 0;
        for at in 0..self.sizes.len() {
            units += self.run(at, share)?;
        }
        Ok(Step::items(units))
    }

    fn data(&self) -> &DataSource {
        &self.data
    }

    fn report(&self, out: &mut Map<String, Value>) {
        let world = self.dp.group().world();
        out.insert("world_size".into(), world.into());
        out.insert("interface".into(), self.link.interface.clone().into());
        out.insert("nominal_gbs".into(), self.link.nominal_gbs.into());
        if let Some(note) = &self.link.note {
            out.insert("nominal_note".into(), note.clone().into());
        }
        if world < 2 {
            out.insert("busbw_note".into(), "one rank: no link crossed".into());
            return;
        }
        let mut figures = Vec::new();
        for size in &self.sizes {
            if let Some(algbw) = median_past_first(&size.rates) {
                let busbw = bus_bandwidth(algbw, world);
                figures.push(json!({"mb": size.mb, "algbw_gbs": algbw, "busbw_gbs": busbw}));
            }
        }
        let mb = |f: &Value| f["mb"].as_f64().unwrap_or(0.0);
        if let Some(busbw) = figures.iter().max_by(|a, b| mb(a).total_cmp(&mb(b))).map(|f| f["busbw_gbs"].clone()) {
            out.insert("busbw_gbs".into(), busbw);
        }
        out.insert("sizes".into(), figures.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugin::settings;

    #[test]
    fn sizes_are_read_and_nonsense_refused() {
        assert_eq!(sizes("1, 25,100").unwrap(), [1.0, 25.0, 100.0]);
        for bad in ["", "1,,2", "0", "-1", "a"] {
            assert!(sizes(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_bus_bandwidth_is_nccl_tests_one() {
        assert_eq!(bus_bandwidth(10.0, 2), 10.0);
        assert_eq!(bus_bandwidth(10.0, 4), 15.0);
        assert_eq!(bus_bandwidth(10.0, 1), 0.0);
    }

    #[test]
    fn a_group_of_one_runs_and_says_it_crossed_no_link() {
        let config = r#"{"sizes_mb": "0.01,0.1", "step_seconds": 0.02, "timeout": 30}"#;
        let mut w = Allreduce::build(settings::<Allreduce>(config).unwrap(), &Runtime::cpu(1).unwrap()).unwrap();
        assert!(w.step().unwrap().items >= 2);
        let mut out = Map::new();
        w.report(&mut out);
        assert_eq!((out["world_size"].as_u64(), out.get("busbw_gbs")), (Some(1), None));
        assert_eq!(out["busbw_note"], "one rank: no link crossed");
        assert!(out.contains_key("interface"), "{out:?}");
    }
}
