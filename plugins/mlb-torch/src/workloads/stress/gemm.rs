//! gemm: matrix product throughput. Each unit of work is one product of two
//! `size x size` matrices of the chosen precision (`2 size^3` flops), waited
//! for on the device; a step repeats it for `step_seconds` (see the module
//! [`super`]). Item: a product. Reports `tflops`, `precision` and `side`
//! (the side used; the report's `size` is the argument's, 0 when sized
//! from memory).
//!
//! | precision | what multiplies |
//! |---|---|
//! | `fp32` | float32, TF32 off |
//! | `tf32` | float32 with cuBLAS's TF32 on (CUDA only) |
//! | `bf16`, `fp16` | bfloat16, float16 |
//! | `fp8` | float8 e4m3 through `_scaled_mm` (unit scales, bfloat16 out), where libtorch has it for the device |
//!
//! Every product is checked ([`Check`]): 64 of its elements, chosen from the
//! seed at setup, are compared with their value computed in float64 from the
//! same inputs. One outside the bound fails the step, and so the burn.
//!
//! `size: 0` (the default) sizes the matrices to `memory_share` (default
//! 0.1) of the memory free to the slot ([`super::memory`]): the three
//! matrices of the product fill that share of a GPU's free memory, at most
//! 32768 on a side (a product stays well within a step), or of the CPU
//! slot's memory limit (cgroup, else `MemAvailable`), at most 1024 on a
//! side (a CPU slot's product near a tenth of a second). Where the free
//! memory is not known: 8192 on a GPU, 1024 on the CPU. A `size` above 0
//! sets the side.

use super::{memory, TimedSteps};
use crate::data::DataSource;
use crate::precision::{Precision, TorchPrecision};
use crate::{Runtime, TorchWorkload};
use mlb_plugin::{Fault, Step};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{Map, Value};
use tch::{Device, Kind, Tensor};

/// Elements of each product the result check compares.
pub const SAMPLES: usize = 64;
/// The constant `c` of the check's bound `c K u sum_k |a_ik b_kj|`.
pub const BOUND_FACTOR: f64 = 2.0;

mlb_plugin::workload_args! {
    /// The arguments of gemm.
    pub struct Args {
        repeat = 10, number = 1, skip = 1;
        /// fp32, tf32, bf16, fp16 or fp8.
        pub precision: String = "bf16",
        /// Side of the matrices (0: sized to `memory_share` of the free memory).
        pub size: u64 = 0,
        /// Share of the device's free memory the three matrices fill when `size` is 0.
        pub memory_share: f64 = 0.1,
        /// Seconds each step runs products for.
        pub step_seconds: f64 = 1.0,
    }
}

/// Reads `fp32`, `tf32`, `bf16`, `fp16` or `fp8` (gemm takes every
/// [`Precision`]).
pub fn parse_precision(text: &str) -> mlb_plugin::Result<Precision> {
    let name = text.trim().to_ascii_lowercase();
    Precision::from_name(&name)
        .ok_or_else(|| format!("unknown precision `{name}`: use fp32, tf32, bf16, fp16 or fp8").into())
}

/// Settings of gemm: its arguments checked.
#[derive(Debug, Clone)]
pub struct Settings {
    precision: Precision,
    size: i64,
    memory_share: f64,
    steps: f64,
}

/// The matrices of a product and the device they live on.
struct Operands {
    runtime: Runtime,
    a: Tensor,
    b: Tensor,
    /// `_scaled_mm`'s unit scales (fp8 only).
    scale: Option<Tensor>,
}

impl Operands {
    /// One product, waited for.
    fn product(&self) -> Result<Tensor, tch::TchError> {
        let c = match &self.scale {
            Some(one) => self.a.f_internal_scaled_mm(&self.b, one, one, None::<Tensor>, None, Kind::BFloat16, false)?,
            None => self.a.f_matmul(&self.b)?,
        };
        self.runtime.sync();
        Ok(c)
    }
}

/// The unit roundoff of the products of `precision`: half the spacing of
/// the numbers just above 1 in the type the products are rounded to
/// (float32 2^-24, TF32's 10-bit mantissa 2^-11, bfloat16 2^-8, float16
/// 2^-11; fp8's products come out in bfloat16, 2^-8).
pub fn unit_roundoff(precision: Precision) -> f64 {
    match precision {
        Precision::Fp32 => f64::powi(2.0, -24),
        Precision::Tf32 | Precision::Fp16 => f64::powi(2.0, -11),
        Precision::Bf16 | Precision::Fp8 => f64::powi(2.0, -8),
    }
}

/// The result check of every product: [`SAMPLES`] elements `c_ij` of the
/// product, chosen from the seed at setup, against `sum_k a_ik b_kj`
/// computed in float64 from the same inputs (exact in float64), within
/// `BOUND_FACTOR K u sum_k |a_ik b_kj|` for `K` terms and the precision's
/// unit roundoff `u` ([`unit_roundoff`]): the worst-case error of a dot
/// product of `K` terms accumulated and rounded in that precision (`K u`),
/// with a factor 2 for the rounding of the inputs (TF32) and of the result.
/// It passes every product a healthy device computes, and catches a wrong
/// exponent bit, row or block, not a wrong last bit.
///
/// The inputs never change, so the references and bounds are computed once,
/// at setup; a check then gathers the sampled elements on the device and
/// reads them back (64 values).
struct Check {
    /// The flat indices `i * side + j` of the sampled elements, on the device.
    index: Tensor,
    /// `sum_k a_ik b_kj` of each sampled element.
    reference: Vec<f64>,
    /// The largest error allowed for each.
    bound: Vec<f64>,
}

impl Check {
    /// Samples `SAMPLES` elements of the product of `operands` (`side x
    /// side`) from `seed` and computes their references and bounds.
    fn new(operands: &Operands, precision: Precision, side: i64, seed: u64) -> Result<Self, tch::TchError> {
        let device = operands.a.device();
        let mut rng = StdRng::seed_from_u64(seed);
        let (rows, cols): (Vec<i64>, Vec<i64>) =
            (0..SAMPLES).map(|_| (rng.random_range(0..side), rng.random_range(0..side))).unzip();
        let index: Vec<i64> = rows.iter().zip(&cols).map(|(i, j)| i * side + j).collect();
        let on_host = |t: Tensor| t.f_to_device(Device::Cpu)?.f_to_kind(Kind::Double);
        let pick = |indices: &[i64]| Tensor::from_slice(indices).to_device(device);
        // Row i of a and column j of b for each sample: [SAMPLES, K] each.
        let a = on_host(operands.a.f_index_select(0, &pick(&rows))?)?;
        let b = on_host(operands.b.f_index_select(1, &pick(&cols))?.f_t_()?)?;
        let terms = a.f_mul(&b)?;
        let reference = Vec::<f64>::try_from(terms.f_sum_dim_intlist(1, false, Kind::Double)?)?;
        let magnitude = Vec::<f64>::try_from(terms.f_abs()?.f_sum_dim_intlist(1, false, Kind::Double)?)?;
        let scale = BOUND_FACTOR * side as f64 * unit_roundoff(precision);
        let bound = magnitude.iter().map(|m| scale * m).collect();
        Ok(Check { index: pick(&index), reference, bound })
    }

    /// Compares the sampled elements of `c` with their references: an error
    /// names how many were wrong and the largest error against its bound.
    fn verify(&self, c: &Tensor) -> mlb_plugin::Result<()> {
        let sampled = c.f_reshape([-1])?.f_index_select(0, &self.index)?.f_to_device(Device::Cpu)?;
        let values = Vec::<f64>::try_from(sampled.f_to_kind(Kind::Double)?)?;
        // (error, bound) of each wrong element; a NaN is wrong.
        let wrong: Vec<(f64, f64)> = values
            .iter()
            .zip(&self.reference)
            .zip(&self.bound)
            .map(|((value, reference), &bound)| ((value - reference).abs(), bound))
            .filter(|&(error, bound)| error.is_nan() || error > bound)
            .collect();
        let Some(&(error, bound)) = wrong.iter().max_by(|x, y| (x.0 / x.1).total_cmp(&(y.0 / y.1))) else {
            return Ok(());
        };
        let (count, times) = (wrong.len(), error / bound);
        let largest = format!("largest error {error:.1e} ({times:.1} times its bound {bound:.1e})");
        Err(format!("gemm result check: {count} of {SAMPLES} sampled elements wrong, {largest}").into())
    }

    /// Corrupts the first sampled element of `c` in place: adds four times
    /// its bound, so that [`verify`](Self::verify) must find it.
    fn corrupt(&self, c: &Tensor) -> Result<(), tch::TchError> {
        let first = self.index.f_int64_value(&[0])?;
        let _ = c.f_reshape([-1])?.f_narrow(0, first, 1)?.f_add_scalar_(4.0 * self.bound[0])?;
        Ok(())
    }
}

/// The gemm workload.
pub struct Gemm {
    precision: Precision,
    size: i64,
    operands: Operands,
    check: Check,
    /// The next product's output is corrupted before its check
    /// ([`Fault::CorruptOutput`]).
    corrupt_next: bool,
    steps: TimedSteps,
    data: DataSource,
}

impl TorchWorkload for Gemm {
    const NAME: &'static str = "gemm";
    const DESCRIPTION: &'static str = "matrix product TFLOPS (fp32, tf32, bf16, fp16, fp8) for a duration: mlb burn";
    type Args = Args;
    type Settings = Settings;

    fn parse(args: Args) -> mlb_plugin::Result<Settings> {
        let precision = parse_precision(&args.precision)?;
        let steps = args.step_seconds;
        TimedSteps::new(steps)?;
        let memory_share = args.memory_share;
        if !(memory_share > 0.0 && memory_share <= 1.0) {
            return Err(format!("memory_share must be a share above 0 and at most 1, not {memory_share}").into());
        }
        Ok(Settings { precision, size: args.size as i64, memory_share, steps })
    }

    fn build(settings: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
        let device = rt.device();
        let name = settings.precision.name();
        if settings.precision == Precision::Tf32 && !device.is_cuda() {
            return Err(format!("precision {name}: not on this device (TF32 is CUDA's; use fp32 on {device:?})").into());
        }
        if device.is_cuda() {
            crate::ops::set_allow_tf32(settings.precision == Precision::Tf32);
        }
        let element = settings.precision.kind().elt_size_in_bytes() as u64;
        let cap = if device.is_cuda() { memory::GPU_CAP } else { memory::CPU_CAP };
        let size = match (settings.size, memory::free(device)) {
            (0, Some(free)) => memory::side(free, settings.memory_share, element, 3, cap),
            (0, None) if device.is_cuda() => 8192,
            (0, None) => memory::CPU_CAP,
            (n, _) => n,
        };
        let draw = |kind: Kind| -> Result<Tensor, tch::TchError> {
            let x = Tensor::f_randn([size, size], (Kind::Float, device))?;
            x.f_to_kind(kind)
        };
        let kind = settings.precision.kind();
        let a = draw(kind)?;
        // `_scaled_mm` takes its second matrix column-major.
        let b = if settings.precision == Precision::Fp8 {
            draw(kind)?.f_t_()?.f_contiguous()?.f_t_()?
        } else {
            draw(kind)?
        };
        let scale = (settings.precision == Precision::Fp8).then(|| Tensor::ones([], (Kind::Float, device)));
        let operands = Operands { runtime: *rt, a, b, scale };
        // One product now: a precision the device lacks is refused here, by
        // name, and a wrong result fails the setup.
        let first =
            operands.product().map_err(|e| format!("precision {name}: not on this device ({device:?}): {e}"))?;
        let check = Check::new(&operands, settings.precision, size, rt.seed())?;
        check.verify(&first)?;
        Ok(Gemm {
            precision: settings.precision,
            size,
            operands,
            check,
            corrupt_next: false,
            steps: TimedSteps::new(settings.steps)?,
            data: DataSource::Synthetic { requested: None },
        })
    }

    /// Products for the step's time, each checked ([`Check`]); the first
    /// failure, of a product or of its check, fails the step.
    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let mut failed = None;
        let (operands, check, corrupt) = (&self.operands, &self.check, &mut self.corrupt_next);
        let units = self.steps.step(|| {
            let checked = operands.product().map_err(mlb_plugin::Error::from).and_then(|c| {
                if std::mem::take(corrupt) {
                    check.corrupt(&c)?;
                }
                check.verify(&c)
            });
            if let Err(e) = checked {
                failed.get_or_insert(e);
            }
        });
        match failed {
            Some(e) => Err(e),
            None => Ok(Step::items(units)),
        }
    }

    /// [`Fault::CorruptOutput`]: the next product's output has one sampled
    /// element corrupted before its check. gemm has no parameters to flip a
    /// bit of.
    fn inject(&mut self, fault: Fault) -> mlb_plugin::Result<()> {
        match fault {
            Fault::CorruptOutput => {
                self.corrupt_next = true;
                Ok(())
            }
            other => Err(crate::plugin::refused(Self::NAME, other)),
        }
    }

    fn data(&self) -> &DataSource {
        &self.data
    }

    fn report(&self, out: &mut Map<String, Value>) {
        out.insert("precision".into(), self.precision.name().into());
        out.insert("size".into(), self.size.into());
        // The report's `size` is the argument's (0 when sized from memory).
        out.insert("side".into(), self.size.into());
        if let Some(rate) = self.steps.median_rate() {
            let flops = 2.0 * (self.size as f64).powi(3);
            out.insert("tflops".into(), (rate * flops / 1e12).into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugin::settings;

    fn built(config: &str) -> mlb_plugin::Result<Gemm> {
        Gemm::build(settings::<Gemm>(config)?, &Runtime::cpu(1)?)
    }

    #[test]
    fn a_step_of_products_reports_its_precision_and_tflops() {
        let mut gemm = built(r#"{"precision": "fp32", "size": 64, "step_seconds": 0.05}"#).unwrap();
        let step = gemm.step().unwrap();
        assert!(step.items > 1, "many 64x64 products in 50 ms, got {}", step.items);
        let mut out = Map::new();
        gemm.report(&mut out);
        assert_eq!(out["precision"], "fp32");
        assert_eq!((&out["size"], &out["side"]), (&64.into(), &64.into()));
        assert!(out["tflops"].as_f64().unwrap() > 0.0, "{out:?}");
    }

    #[test]
    fn half_precisions_run_on_the_cpu_and_tf32_is_refused_there() {
        for precision in ["bf16", "fp16"] {
            let config = format!(r#"{{"precision": "{precision}", "size": 32, "step_seconds": 0.01}}"#);
            built(&config).unwrap_or_else(|e| panic!("{precision}: {e}")).step().unwrap();
        }
        let refused = built(r#"{"precision": "tf32", "size": 32}"#).err().unwrap().to_string();
        let sized = built(r#"{"precision": "fp32", "memory_share": 0.0000001, "step_seconds": 0.01}"#).unwrap();
        assert_eq!(sized.size, memory::ALIGN, "a sliver of the slot's memory gives the least side");
        let share = built(r#"{"memory_share": 0}"#).err().unwrap().to_string();
        assert!(share.contains("memory_share must be a share"), "{share}");
        assert!(refused.contains("tf32: not on this device"), "{refused}");
        let unknown = built(r#"{"precision": "fp4"}"#).err().unwrap().to_string();
        assert!(unknown.contains("unknown precision `fp4`"), "{unknown}");
    }

    #[test]
    fn every_product_passes_its_check_and_a_corrupted_one_fails_the_step() {
        for precision in ["fp32", "bf16", "fp16"] {
            let config = format!(r#"{{"precision": "{precision}", "size": 256, "step_seconds": 0.01}}"#);
            let mut gemm = built(&config).unwrap();
            for _ in 0..3 {
                gemm.step().unwrap_or_else(|e| panic!("{precision}: {e}"));
            }
            gemm.inject(Fault::CorruptOutput).unwrap();
            let error = gemm.step().unwrap_err().to_string();
            let want = "gemm result check: 1 of 64 sampled elements wrong, largest error";
            assert!(error.starts_with(want) && error.contains("(4.0 times its bound"), "{precision}: {error}");
            gemm.step().unwrap_or_else(|e| panic!("{precision}: once only: {e}"));
        }
        let mut gemm = built(r#"{"precision": "fp32", "size": 64, "step_seconds": 0.01}"#).unwrap();
        let flip = gemm.inject(Fault::FlipBit).unwrap_err().to_string();
        assert_eq!(flip, "workload `gemm` cannot inject the fault `flip_bit`");
    }

    #[test]
    fn the_bound_is_twice_k_u_times_the_magnitude_and_a_nan_is_wrong() {
        let gemm = built(r#"{"precision": "fp32", "size": 128, "step_seconds": 0.01}"#).unwrap();
        let index = gemm.check.index.int64_value(&[0]);
        let (i, j) = (index / 128, index % 128);
        let (a, b) = (&gemm.operands.a, &gemm.operands.b);
        let magnitude = a.get(i).to_kind(Kind::Double).abs().dot(&b.select(1, j).to_kind(Kind::Double).abs());
        let want = 2.0 * 128.0 * f64::powi(2.0, -24) * magnitude.double_value(&[]);
        assert!((gemm.check.bound[0] - want).abs() <= 1e-12 * want, "{} != {want}", gemm.check.bound[0]);
        let mut c = gemm.operands.product().unwrap();
        gemm.check.verify(&c).unwrap();
        let _ = c.fill_(f64::NAN);
        let error = gemm.check.verify(&c).unwrap_err().to_string();
        assert!(error.starts_with("gemm result check: 64 of 64 sampled elements wrong"), "{error}");
        assert_eq!(unit_roundoff(Precision::Bf16), 1.0 / 256.0);
    }
}
