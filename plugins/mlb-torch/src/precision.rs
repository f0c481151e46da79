//! The numeric precision of training, shared by the workloads that take the
//! `precision` argument: `fp32`, `bf16` or `fp16`.
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
use serde_json::{Map, Value};
use tch::{Device, Tensor};

extern "C" {
    fn mlb_autocast_enter(cuda: bool, half: bool, was_enabled: *mut bool, was_dtype: *mut i8) -> *mut std::ffi::c_char;
    fn mlb_autocast_exit(cuda: bool, was_enabled: bool, was_dtype: i8) -> *mut std::ffi::c_char;
}

/// A training precision, as the `precision` argument names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// Float32 throughout.
    Fp32,
    /// bfloat16 autocast, float32 weights and optimizer state.
    Bf16,
    /// float16 autocast with dynamic loss scaling, float32 weights and
    /// optimizer state.
    Fp16,
}

impl Precision {
    /// The spellings `precision` accepts.
    pub const NAMES: [&'static str; 3] = ["fp32", "bf16", "fp16"];

    /// Reads the `precision` argument.
    pub fn parse(text: &str) -> mlb_plugin::Result<Self> {
        match text {
            "fp32" => Ok(Precision::Fp32),
            "bf16" => Ok(Precision::Bf16),
            "fp16" => Ok(Precision::Fp16),
            other => {
                Err(format!("argument `precision` must be one of {}, got {other:?}", Self::NAMES.join(", ")).into())
            }
        }
    }

    /// The name of the compute type in reports, as libtorch names it
    /// (`float32`, `bfloat16`, `float16`; the fp16 variants of the original
    /// workloads report `float16` too).
    pub fn dtype_name(self) -> &'static str {
        match self {
            Precision::Fp32 => "float32",
            Precision::Bf16 => "bfloat16",
            Precision::Fp16 => "float16",
        }
    }

    /// Runs `f` (a forward pass) under autocast on `device` in this
    /// precision; for fp32, runs it as it is.
    pub fn autocast<T>(self, device: Device, f: impl FnOnce() -> T) -> T {
        if self == Precision::Fp32 {
            return f();
        }
        let _guard = Autocast::enter(device.is_cuda(), self == Precision::Fp16);
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
    use tch::Kind;

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
        let parsed: Vec<Precision> = Precision::NAMES.iter().map(|n| Precision::parse(n).unwrap()).collect();
        assert_eq!(parsed, [Precision::Fp32, Precision::Bf16, Precision::Fp16]);
        let err = Precision::parse("fp8").unwrap_err().to_string();
        assert!(err.contains("fp32, bf16, fp16"), "{err}");
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
