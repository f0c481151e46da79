//! The numeric precision of training, shared by the workloads that take the
//! `precision` argument: `fp32`, `bf16` or `fp16` (the SDK's
//! [`Precision`], [`Precision::TRAINING`]), and what libtorch makes of each
//! precision ([`TorchPrecision`]).
//!
//! bf16 and fp16 are autocast, as PyTorch's `torch.autocast` does: the
//! weights, their gradients and the optimizer's state stay in float32, and
//! inside the forward pass libtorch runs the operations that gain from it
//! (matrix products, linear layers, convolutions, fused attention) in the
//! lower precision, and those that lose accuracy in it (reductions, softmax,
//! normalisation, the loss) in float32. No master copy of the weights is
//! kept in step with a low precision one, any optimizer works unchanged, and
//! it runs on the CPU (bf16) as on a GPU. fp16 adds dynamic loss scaling
//! ([`GradScaler`]), as its narrow exponent range needs; bf16 has float32's
//! range and needs none.

use crate::amp::{GradScaler, LossScale};
use crate::ops::taken_error;
use crate::resume::{Counters, ResumeError};
use serde_json::{Map, Value};
use tch::{Device, Kind, Tensor};

extern "C" {
    fn mlb_autocast_enter(cuda: bool, half: bool, was_enabled: *mut bool, was_dtype: *mut i8) -> *mut std::ffi::c_char;
    fn mlb_autocast_exit(cuda: bool, was_enabled: bool, was_dtype: i8) -> *mut std::ffi::c_char;
}

pub use mlb_plugin::Precision;

/// Reads the `precision` argument of a training workload: one of
/// [`Precision::TRAINING`].
pub fn parse_training(text: &str) -> mlb_plugin::Result<Precision> {
    match Precision::from_name(text) {
        Some(p) if Precision::TRAINING.contains(&p) => Ok(p),
        _ => {
            let names: Vec<_> = Precision::TRAINING.iter().map(|p| p.name()).collect();
            Err(format!("argument `precision` must be one of {}, got {text:?}", names.join(", ")).into())
        }
    }
}

/// What libtorch makes of a [`Precision`].
pub trait TorchPrecision {
    /// The type matrix products run in (under autocast, for bf16 and fp16
    /// training): float32 for fp32 and tf32, float8 E4M3 for fp8.
    fn kind(self) -> Kind;

    /// The name of the compute type in the training workloads' reports, as
    /// libtorch names it (`float32`, `bfloat16`, `float16`; the fp16
    /// variants of the original workloads report `float16` too).
    fn dtype_name(self) -> &'static str;

    /// Runs `f` (a forward pass) under autocast on `device` in this
    /// precision; for fp32 and tf32, runs it as it is. Panics for fp8, which
    /// has no autocast (no training workload accepts it).
    fn autocast<T>(self, device: Device, f: impl FnOnce() -> T) -> T;
}

impl TorchPrecision for Precision {
    fn kind(self) -> Kind {
        match self {
            Precision::Fp32 | Precision::Tf32 => Kind::Float,
            Precision::Bf16 => Kind::BFloat16,
            Precision::Fp16 => Kind::Half,
            Precision::Fp8 => Kind::Float8e4m3fn,
        }
    }

    fn dtype_name(self) -> &'static str {
        match self {
            Precision::Fp32 | Precision::Tf32 => "float32",
            Precision::Bf16 => "bfloat16",
            Precision::Fp16 => "float16",
            Precision::Fp8 => "float8_e4m3fn",
        }
    }

    fn autocast<T>(self, device: Device, f: impl FnOnce() -> T) -> T {
        let half = match self {
            Precision::Fp32 | Precision::Tf32 => return f(),
            Precision::Bf16 => false,
            Precision::Fp16 => true,
            Precision::Fp8 => panic!("fp8 has no autocast: it is not a training precision"),
        };
        let _guard = Autocast::enter(device.is_cuda(), half);
        f()
    }
}

/// Autocast switched on for a device type; dropping it restores the state
/// found on entry.
struct Autocast {
    cuda: bool,
    was_enabled: bool,
    was_dtype: i8,
}

impl Autocast {
    fn enter(cuda: bool, half: bool) -> Self {
        let (mut was_enabled, mut was_dtype) = (false, 0i8);
        // SAFETY: the out-pointers are live locals; the shim catches every
        // C++ exception and returns NULL or a string it allocated, which
        // taken_error frees.
        let error = unsafe { taken_error(mlb_autocast_enter(cuda, half, &mut was_enabled, &mut was_dtype)) };
        if let Some(message) = error {
            panic!("autocast: {message}");
        }
        Autocast { cuda, was_enabled, was_dtype }
    }
}

impl Drop for Autocast {
    fn drop(&mut self) {
        // SAFETY: as in `enter`; the state passed back is what `enter` read.
        let error = unsafe { taken_error(mlb_autocast_exit(self.cuda, self.was_enabled, self.was_dtype)) };
        if let Some(message) = error {
            panic!("autocast: {message}");
        }
    }
}

/// A precision put to work on a device: autocast around the forward pass,
/// loss scaling around the backward pass (fp16).
#[derive(Debug)]
pub struct MixedPrecision {
    precision: Precision,
    device: Device,
    scaler: Option<GradScaler>,
}

impl MixedPrecision {
    /// `precision` on `device`; fp16 scales the loss dynamically.
    pub fn new(precision: Precision, device: Device) -> Self {
        let scaler = (precision == Precision::Fp16).then(|| GradScaler::new(LossScale::dynamic()));
        MixedPrecision { precision, device, scaler }
    }

    /// The precision.
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// Runs the forward pass `f` in the precision.
    pub fn forward<T>(&self, f: impl FnOnce() -> T) -> T {
        self.precision.autocast(self.device, f)
    }

    /// Back-propagates `loss` (times the loss scale, in fp16), adding to the
    /// gradients already there.
    pub fn backward(&self, loss: &Tensor) {
        match &self.scaler {
            Some(scaler) => scaler.scaled(loss).backward(),
            None => loss.backward(),
        }
    }

    /// Makes the gradients `grads` true gradients again (divides them by the
    /// loss scale, in fp16). Returns false when the step must be skipped: a
    /// gradient overflowed, and the scale has been lowered.
    pub fn unscale(&mut self, grads: &[Tensor]) -> bool {
        self.scaler.as_mut().is_none_or(|scaler| scaler.unscale(grads))
    }

    /// Writes the loss scale's state into `counters` (fp16; a checkpoint's).
    pub fn save(&self, counters: &mut Counters) {
        if let Some(scaler) = &self.scaler {
            scaler.save(counters);
        }
    }

    /// Reads back what [`save`](Self::save) wrote.
    pub fn resume(&mut self, counters: &Counters) -> Result<(), ResumeError> {
        self.scaler.as_mut().map_or(Ok(()), |scaler| scaler.resume(counters))
    }

    /// The report fields: `precision`, and `loss_scale` and `skipped_steps`
    /// in fp16.
    pub fn report(&self, out: &mut Map<String, Value>) {
        out.insert("precision".into(), self.precision.dtype_name().into());
        if let Some(scaler) = &self.scaler {
            out.insert("loss_scale".into(), scaler.scale().into());
            out.insert("skipped_steps".into(), scaler.skipped().into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_autocast_runs_matrix_products_in_bf16_on_the_cpu_and_ends_with_its_region() {
        let a = Tensor::ones([2, 2], (Kind::Float, Device::Cpu));
        let inside = Precision::Bf16.autocast(Device::Cpu, || {
            let nested = Precision::Bf16.autocast(Device::Cpu, || a.matmul(&a));
            assert_eq!(nested.kind(), Kind::BFloat16);
            a.matmul(&a)
        });
        assert_eq!(inside.kind(), Kind::BFloat16);
        assert_eq!(a.matmul(&a).kind(), Kind::Float, "autocast is off again after the region");
        assert_eq!(Precision::Fp32.autocast(Device::Cpu, || a.matmul(&a)).kind(), Kind::Float);
    }

    #[test]
    fn the_argument_names_the_three_precisions_and_rejects_others() {
        let parsed: Vec<Precision> = ["fp32", "bf16", "fp16"].iter().map(|n| parse_training(n).unwrap()).collect();
        assert_eq!(parsed, [Precision::Fp32, Precision::Bf16, Precision::Fp16]);
        for other in ["fp8", "tf32", "bfloat16"] {
            let err = parse_training(other).unwrap_err().to_string();
            assert_eq!(err, format!("argument `precision` must be one of fp32, bf16, fp16, got {other:?}"));
        }
    }

    #[test]
    fn fp16_scales_the_loss_and_unscales_the_gradients() {
        let w = Tensor::from_slice(&[2.0f32]).set_requires_grad(true);
        let mut mixed = MixedPrecision::new(Precision::Fp16, Device::Cpu);
        mixed.backward(&(&w * 3.0).sum(Kind::Float));
        assert_eq!(w.grad().double_value(&[0]), 3.0 * 65536.0);
        assert!(mixed.unscale(&[w.grad()]));
        assert_eq!(w.grad().double_value(&[0]), 3.0);
        let mut report = Map::new();
        mixed.report(&mut report);
        assert_eq!(report["precision"], "float16");
    }
}
