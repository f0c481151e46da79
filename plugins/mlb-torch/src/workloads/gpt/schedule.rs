//! The learning rate schedule: linear warm-up, then cosine decay to a tenth
//! of the peak.

/// Warm-up and cosine decay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Schedule {
    /// The peak learning rate.
    pub peak: f64,
    /// Steps of linear warm-up.
    pub warmup: u64,
    /// Steps from the end of the warm-up to the floor.
    pub decay: u64,
}

impl Schedule {
    /// The floor, as a fraction of the peak.
    pub const FLOOR: f64 = 0.1;

    /// The learning rate of step `step` (from 0): `peak (step + 1) / warmup`
    /// during the warm-up, then `floor + (peak - floor) (1 + cos(pi s /
    /// decay)) / 2` for the `s`-th step after it, the floor after `decay`
    /// steps.
    pub fn lr(&self, step: u64) -> f64 {
        if step < self.warmup {
            return self.peak * (step + 1) as f64 / self.warmup as f64;
        }
        let floor = self.peak * Self::FLOOR;
        let progress = ((step - self.warmup) as f64 / self.decay.max(1) as f64).min(1.0);
        floor + (self.peak - floor) * 0.5 * (1.0 + (std::f64::consts::PI * progress).cos())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warms_up_linearly_then_decays_along_a_cosine_to_the_floor() {
        let s = Schedule { peak: 1e-3, warmup: 10, decay: 100 };
        assert!((s.lr(0) - 1e-4).abs() < 1e-12);
        assert!((s.lr(9) - 1e-3).abs() < 1e-12);
        assert!((s.lr(10) - 1e-3).abs() < 1e-12);
        assert!((s.lr(60) - 0.55e-3).abs() < 1e-12, "half way: the mean of peak and floor");
        assert!((s.lr(110) - 1e-4).abs() < 1e-12);
        assert!((s.lr(10_000) - 1e-4).abs() < 1e-12);
    }
}
