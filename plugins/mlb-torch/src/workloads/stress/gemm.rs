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
use mlb_plugin::Step;
use serde_json::{Map, Value};
use tch::{Kind, Tensor};

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
    /// One product, waited for (its result dropped).
    fn product(&self) -> Result<(), tch::TchError> {
        let _c = match &self.scale {
            Some(one) => self.a.f_internal_scaled_mm(&self.b, one, one, None::<Tensor>, None, Kind::BFloat16, false)?,
            None => self.a.f_matmul(&self.b)?,
        };
        self.runtime.sync();
        Ok(())
    }
}

/// The gemm workload.
pub struct Gemm {
    precision: Precision,
    size: i64,
    operands: Operands,
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
        // One product now: a precision the device lacks is refused here, by name.
        operands.product().map_err(|e| format!("precision {name}: not on this device ({device:?}): {e}"))?;
        Ok(Gemm {
            precision: settings.precision,
            size,
            operands,
            steps: TimedSteps::new(settings.steps)?,
            data: DataSource::Synthetic { requested: None },
        })
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let mut failed = None;
        let operands = &self.operands;
        let units = self.steps.step(|| {
            if let Err(e) = operands.product() {
                failed.get_or_insert(e);
            }
        });
        match failed {
            Some(e) => Err(e.into()),
            None => Ok(Step::items(units)),
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
}
