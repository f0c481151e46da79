//! The peak of a CPU, measured: a short matrix product probe in the run's
//! precision, done while the workload is set up (outside the timed window),
//! for the MFU of runs on a CPU, where no peak table applies. The report
//! records it as `peak_tflops` with `peak_source: "probe"`. The plugin
//! adaptor runs it for every workload that names the type of its matrix
//! products ([`TorchWorkload::flops_kind`](crate::TorchWorkload::flops_kind)).

use serde_json::{Map, Value};
use std::time::{Duration, Instant};
use tch::{Device, Kind, Tensor};

/// How long the probe measures at most, besides one warm-up product.
pub const BUDGET: Duration = Duration::from_millis(600);

/// The largest side of the square matrices the probe multiplies.
const MAX_SIDE: i64 = 2048;

/// The best TFLOPS of `n` x `n` matrix products in `kind` on the CPU
/// (with libtorch's intra-op threads as set), over at most about
/// [`BUDGET`]: the side doubles from 256 while a product takes under 20 ms,
/// then products are timed until the budget is spent; the fastest counts.
pub fn cpu_peak_tflops(kind: Kind) -> f64 {
    let opts = (kind, Device::Cpu);
    let start = Instant::now();
    let mut side = 256;
    let product = |a: &Tensor, b: &Tensor| -> f64 {
        let t = Instant::now();
        let c = a.matmul(b);
        // The result is read back so that the product is done.
        let _ = c.double_value(&[0, 0]);
        t.elapsed().as_secs_f64()
    };
    let (mut a, mut b) = (Tensor::randn([side, side], opts), Tensor::randn([side, side], opts));
    let _warm_up = product(&a, &b);
    while side < MAX_SIDE && product(&a, &b) < 0.02 && start.elapsed() < BUDGET / 2 {
        side *= 2;
        (a, b) = (Tensor::randn([side, side], opts), Tensor::randn([side, side], opts));
        let _warm_up = product(&a, &b);
    }
    let mut best = f64::INFINITY;
    while best.is_infinite() || start.elapsed() < BUDGET {
        best = best.min(product(&a, &b));
    }
    2.0 * (side as f64).powi(3) / best / 1e12
}

/// The probe's peak in `kind` when `device` is the CPU; `None` on a GPU
/// (whose peak is the peak table's, by model).
pub fn on_cpu(device: Device, kind: Kind) -> Option<f64> {
    (device == Device::Cpu).then(|| cpu_peak_tflops(kind))
}

/// Writes `peak_tflops` and `peak_source` (`probe`).
pub fn report(tflops: f64, out: &mut Map<String, Value>) {
    out.insert("peak_tflops".into(), tflops.into());
    out.insert("peak_source".into(), "probe".into());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_measures_a_plausible_cpu_peak_within_its_budget() {
        tch::set_num_threads(1);
        let start = Instant::now();
        let fp32 = cpu_peak_tflops(Kind::Float);
        assert!(start.elapsed() < Duration::from_secs(3), "{:?}", start.elapsed());
        // One core: above 0.1 GFLOPS, below 10 TFLOPS.
        assert!(fp32 > 1e-4 && fp32 < 10.0, "{fp32}");
        let mut out = Map::new();
        report(fp32, &mut out);
        assert_eq!(out["peak_source"], "probe");
        assert_eq!(out["peak_tflops"].as_f64(), Some(fp32));
    }
}
