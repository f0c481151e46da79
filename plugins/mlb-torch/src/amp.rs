//! Half-precision training: loss scaling and fp32 master weights.
//!
//! The model's parameters live in half precision; a float32 copy of each
//! ("master weights") receives the update, so that small updates are not lost
//! to fp16 rounding. The loss is multiplied by a scale before the backward pass
//! so that small gradients do not underflow, and the gradients are divided by
//! it again (in fp32) before the update.
//!
//! [`GradScaler`] is the loss scaling alone, for models whose weights stay in
//! float32 and whose forward pass runs under fp16 autocast
//! ([`crate::precision`]).

use crate::resume::{Counters, ResumeError};
use tch::{Kind, Tensor};

/// How the loss is scaled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LossScale {
    /// A fixed scale (the original suite's fp16 jobs used 128).
    Static(f64),
    /// A scale that halves when a step overflows (the step is skipped) and
    /// doubles after `interval` good steps in a row, like PyTorch's
    /// `GradScaler`. Checking for overflow costs one host sync per step.
    Dynamic {
        /// The current scale.
        scale: f64,
        /// Good steps before the scale doubles.
        interval: u32,
        /// Good steps since the last change.
        good: u32,
    },
}

impl LossScale {
    /// A dynamic scale starting at 2^16 and growing every 2000 good steps
    /// (`GradScaler`'s defaults).
    pub fn dynamic() -> Self {
        LossScale::Dynamic { scale: 65536.0, interval: 2000, good: 0 }
    }

    /// Reads the `loss_scale` argument: a number >= 1 (static scale) or
    /// `"dynamic"`; `default` is the static scale when it is absent.
    pub fn parse(text: Option<&str>, default: f64) -> mlb_plugin::Result<Self> {
        let text = text.map_or_else(|| default.to_string(), str::to_string);
        match text.as_str() {
            "dynamic" => Ok(LossScale::dynamic()),
            s => match s.parse::<f64>() {
                Ok(v) if v >= 1.0 => Ok(LossScale::Static(v)),
                _ => Err(format!("argument `loss_scale` must be a number >= 1 or \"dynamic\", got {s:?}").into()),
            },
        }
    }

    /// The current scale.
    pub fn value(&self) -> f64 {
        match *self {
            LossScale::Static(s) | LossScale::Dynamic { scale: s, .. } => s,
        }
    }

    /// Writes a dynamic scale's state (its value, its good steps) and the
    /// steps `skipped` into `counters` (a static scale is the config's).
    fn save(&self, skipped: u64, counters: &mut Counters) {
        if let LossScale::Dynamic { scale, good, .. } = *self {
            counters.set("loss_scale", scale);
            counters.set("loss_scale_good_steps", good);
        }
        counters.set("skipped_steps", skipped);
    }

    /// Reads back what [`save`](Self::save) wrote: the scale's state, and
    /// the steps skipped.
    fn resume(&mut self, counters: &Counters) -> Result<u64, ResumeError> {
        if let LossScale::Dynamic { scale, good, .. } = self {
            *scale = counters.f64("loss_scale")?;
            *good = counters.u64("loss_scale_good_steps")? as u32;
        }
        counters.u64("skipped_steps")
    }

    /// Records whether the last step's gradients were finite; returns
    /// whether that step may be applied.
    fn update(&mut self, finite: bool) -> bool {
        match self {
            LossScale::Static(_) => true,
            LossScale::Dynamic { scale, interval, good } => {
                if !finite {
                    *scale = (*scale * 0.5).max(1.0);
                    *good = 0;
                    return false;
                }
                *good += 1;
                if *good >= *interval {
                    *scale *= 2.0;
                    *good = 0;
                }
                true
            }
        }
    }
}

/// Loss scaling for a float32 model trained under fp16 autocast, as
/// PyTorch's `GradScaler` does: the loss is multiplied by the scale before
/// the backward pass, the gradients divided by it after.
#[derive(Debug)]
pub struct GradScaler {
    scale: LossScale,
    skipped: u64,
}

impl GradScaler {
    /// Scales by `scale`.
    pub fn new(scale: LossScale) -> Self {
        GradScaler { scale, skipped: 0 }
    }

    /// `loss` times the scale, in float32.
    pub fn scaled(&self, loss: &Tensor) -> Tensor {
        loss.to_kind(Kind::Float) * self.scale.value()
    }

    /// Divides `grads` by the scale in place. Returns false when the step
    /// must be skipped (dynamic scaling found a non-finite gradient; the
    /// scale has been lowered).
    pub fn unscale(&mut self, grads: &[Tensor]) -> bool {
        let inv = 1.0 / self.scale.value();
        let finite = tch::no_grad(|| {
            for g in grads {
                let _ = g.shallow_clone().g_mul_scalar_(inv);
            }
            match self.scale {
                LossScale::Static(_) => true,
                LossScale::Dynamic { .. } => {
                    let flags: Vec<Tensor> = grads.iter().map(|g| g.isfinite().all()).collect();
                    flags.is_empty() || Tensor::stack(&flags, 0).all().int64_value(&[]) != 0
                }
            }
        });
        let apply = self.scale.update(finite);
        if !apply {
            self.skipped += 1;
        }
        apply
    }

    /// The current loss scale.
    pub fn scale(&self) -> f64 {
        self.scale.value()
    }

    /// Steps skipped because of overflowing gradients.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Writes the scale's state into `counters` (a checkpoint's).
    pub fn save(&self, counters: &mut Counters) {
        self.scale.save(self.skipped, counters);
    }

    /// Reads back what [`save`](Self::save) wrote.
    pub fn resume(&mut self, counters: &Counters) -> Result<(), ResumeError> {
        self.skipped = self.scale.resume(counters)?;
        Ok(())
    }
}

/// fp32 master copies of a half-precision model's parameters, updated by
/// plain SGD (the optimizer of the suite's fp16 jobs).
#[derive(Debug)]
pub struct MasterWeights {
    model: Vec<Tensor>,
    master: Vec<Tensor>,
    grads: Vec<Tensor>,
    scale: LossScale,
    skipped: u64,
    /// `-lr` as a 0-dim tensor on the device, made once per learning rate.
    neg_lr: Option<(f64, Tensor)>,
}

impl MasterWeights {
    /// Takes the model's trainable variables (already converted to half
    /// precision) and makes their fp32 master copies.
    pub fn new(model: Vec<Tensor>, scale: LossScale) -> Self {
        let (master, grads) = tch::no_grad(|| {
            let master: Vec<Tensor> = model.iter().map(|v| v.to_kind(Kind::Float).detach()).collect();
            let grads = master.iter().map(Tensor::zeros_like).collect();
            (master, grads)
        });
        MasterWeights { model, master, grads, scale, skipped: 0, neg_lr: None }
    }

    /// Zeroes the model's gradients and back-propagates `loss` times the scale.
    pub fn backward(&mut self, loss: &Tensor) {
        for v in &mut self.model {
            v.zero_grad();
        }
        (loss.to_kind(Kind::Float) * self.scale.value()).backward();
    }

    /// Copies the model's gradients into fp32 and divides them by the scale.
    /// Returns false when the step must be skipped (dynamic scaling found a
    /// non-finite gradient; the scale has been lowered).
    pub fn unscale(&mut self) -> bool {
        let inv = 1.0 / self.scale.value();
        tch::no_grad(|| {
            for (v, g) in self.model.iter().zip(&mut self.grads) {
                let half = v.grad();
                if half.defined() {
                    g.copy_(&half);
                    let _ = g.g_mul_scalar_(inv);
                } else {
                    let _ = g.zero_();
                }
            }
        });
        let finite = match self.scale {
            LossScale::Static(_) => true,
            LossScale::Dynamic { .. } => {
                let flags: Vec<Tensor> = self.grads.iter().map(|g| g.isfinite().all()).collect();
                Tensor::stack(&flags, 0).all().int64_value(&[]) != 0
            }
        };
        let apply = self.scale.update(finite);
        if !apply {
            self.skipped += 1;
        }
        apply
    }

    /// The fp32, unscaled gradients of the last [`unscale`](Self::unscale).
    pub fn grads(&self) -> &[Tensor] {
        &self.grads
    }

    /// `master -= lr * grad`, then copies the master weights into the model.
    pub fn sgd_step(&mut self, lr: f64) {
        if self.neg_lr.as_ref().is_none_or(|(cached, _)| *cached != lr) {
            let device = self.grads.first().map_or(tch::Device::Cpu, Tensor::device);
            self.neg_lr = Some((lr, Tensor::from(-lr as f32).to_device(device)));
        }
        let Some((_, neg_lr)) = &self.neg_lr else { return };
        tch::no_grad(|| {
            for ((v, m), g) in self.model.iter_mut().zip(&mut self.master).zip(&self.grads) {
                let _ = m.addcmul_(g, neg_lr);
                v.copy_(m);
            }
        });
    }

    /// The current loss scale.
    pub fn scale(&self) -> f64 {
        self.scale.value()
    }

    /// Steps skipped because of overflowing gradients.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// The fp32 master weights by name (`master.I` for the model's `I`-th
    /// trainable variable), the instance's own tensors (a checkpoint's),
    /// and the scale's state written into `counters`.
    pub fn save(&self, counters: &mut Counters) -> Vec<(String, Tensor)> {
        self.scale.save(self.skipped, counters);
        self.master.iter().enumerate().map(|(i, m)| (format!("master.{i}"), m.shallow_clone())).collect()
    }

    /// Reads back the scale's state [`save`](Self::save) wrote (the master
    /// weights are copied in place by the restore).
    pub fn resume(&mut self, counters: &Counters) -> Result<(), ResumeError> {
        self.skipped = self.scale.resume(counters)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dynamic_scale_backs_off_on_overflow_and_grows_after_good_steps() {
        let mut s = LossScale::Dynamic { scale: 8.0, interval: 2, good: 0 };
        assert!(!s.update(false));
        assert_eq!(s.value(), 4.0);
        assert!(s.update(true) && s.update(true));
        assert_eq!(s.value(), 8.0);
        let mut fixed = LossScale::Static(128.0);
        assert!(fixed.update(false));
        assert_eq!(fixed.value(), 128.0);
    }

    #[test]
    fn a_half_parameter_follows_its_fp32_master_through_tiny_updates() {
        // 1 + 1e-4 rounds back to 1 in fp16: without master weights the
        // updates would be lost.
        let w = Tensor::from_slice(&[1.0f32]).to_kind(Kind::Half).set_requires_grad(true);
        let mut mw = MasterWeights::new(vec![w.shallow_clone()], LossScale::Static(128.0));
        for _ in 0..20 {
            mw.backward(&(-&w).sum(Kind::Float));
            assert!(mw.unscale());
            assert!((mw.grads()[0].double_value(&[0]) + 1.0).abs() < 1e-3);
            mw.sgd_step(1e-4);
        }
        let master = mw.master[0].double_value(&[0]);
        assert!((master - 1.002).abs() < 1e-5, "master {master}");
        assert!(w.double_value(&[0]) > 1.0, "the half weight moved");
    }

    #[test]
    fn an_overflowing_step_is_skipped_under_dynamic_scaling() {
        let w = Tensor::from_slice(&[1.0f32]).to_kind(Kind::Half).set_requires_grad(true);
        let mut mw = MasterWeights::new(vec![w.shallow_clone()], LossScale::dynamic());
        // d/dw (1e4 * w) * 65536 overflows fp16.
        mw.backward(&(&w * 1e4).sum(Kind::Float));
        assert!(!mw.unscale());
        assert_eq!(mw.skipped(), 1);
        assert_eq!(mw.scale(), 32768.0);
    }
}
