//! Learning-rate schedules: linear warm-up then cosine decay, as
//! transformers are trained.

/// Linear warm-up from 0 to `lr` over `warmup` steps, then a cosine decay
/// to `lr * floor` at step `warmup + decay`, held there after.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WarmupCosine {
    /// The peak learning rate.
    pub lr: f64,
    /// Steps of linear warm-up.
    pub warmup: u64,
    /// Steps of cosine decay after the warm-up.
    pub decay: u64,
    /// The last rate, as a share of `lr`.
    pub floor: f64,
}

impl WarmupCosine {
    /// The learning rate of step `step` (counted from 0).
    pub fn at(&self, step: u64) -> f64 {
        if step < self.warmup {
            return self.lr * (step + 1) as f64 / self.warmup as f64;
        }
        let t = ((step - self.warmup) as f64 / self.decay.max(1) as f64).min(1.0);
        let cosine = 0.5 * (1.0 + (std::f64::consts::PI * t).cos());
        self.lr * (self.floor + (1.0 - self.floor) * cosine)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warms_up_linearly_then_decays_to_the_floor() {
        let s = WarmupCosine { lr: 1.0, warmup: 4, decay: 10, floor: 0.1 };
        assert_eq!([s.at(0), s.at(1), s.at(3)], [0.25, 0.5, 1.0]);
        assert_eq!(s.at(4), 1.0);
        assert!((s.at(9) - 0.55).abs() < 1e-12);
        assert!((s.at(14) - 0.1).abs() < 1e-12 && (s.at(1000) - 0.1).abs() < 1e-12);
    }
}
