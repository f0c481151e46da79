//! The sine waves of the time-sequence-prediction workload (the original
//! suite's toy_lstm): `traindata.pt`, a float64 NumPy array of 100 waves of
//! 1,000 steps, wave `n` at step `t` being `sin((t + s_n) / 20)` with the
//! shift `s_n` a whole number drawn uniformly from [-80, 80), as the
//! original's generation step describes them; written as `torch.save` writes
//! an array ([`torch_save`](super::torch_save)). The same size at both scales
//! (800 KB): the script trains on waves 3 to 99 and tests on 0 to 2.

use super::rng::stream;
use super::torch_save::float64_array;
use super::{FileSpec, Generator};
use rand::Rng;

/// The file the script loads, relative to the data set.
pub const FILE: &str = "traindata.pt";
/// Number of waves.
pub const WAVES: usize = 100;
/// Steps per wave.
pub const STEPS: usize = 1_000;
/// Period divisor: a wave advances 1/20 radian a step.
const T: f64 = 20.0;

/// The sine waves for one seed.
#[derive(Debug)]
pub struct SineWaves {
    seed: u64,
}

impl SineWaves {
    /// The waves drawn from `seed`.
    pub fn new(seed: u64) -> Self {
        SineWaves { seed }
    }

    /// The waves, row-major (`WAVES` x `STEPS`).
    pub fn values(&self) -> Vec<f64> {
        let mut rng = stream(self.seed, "time_series_prediction", 0, 0);
        let bound = (4.0 * T) as i64;
        (0..WAVES)
            .flat_map(|_| {
                let shift = rng.random_range(-bound..bound);
                (0..STEPS as i64).map(move |t| ((t + shift) as f64 / T).sin())
            })
            .collect()
    }
}

impl Generator for SineWaves {
    fn files(&self) -> Vec<FileSpec> {
        vec![FileSpec::new(FILE, 1)]
    }

    fn chunk(&self, _file: usize, _chunk: usize) -> Vec<u8> {
        float64_array(WAVES, STEPS, &self.values())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_wave_is_a_shifted_sine_of_period_40_pi() {
        let values = SineWaves::new(4).values();
        assert_eq!(values.len(), WAVES * STEPS);
        let mut shifts = std::collections::BTreeSet::new();
        for wave in values.chunks(STEPS) {
            // The shift that gives the first value, then every step follows from it.
            let shift = (-80..80).find(|s| ((*s as f64) / T).sin() == wave[0]).expect("a shift in [-80, 80)");
            assert!(wave.iter().enumerate().all(|(t, v)| *v == ((t as i64 + shift) as f64 / T).sin()));
            shifts.insert(shift);
        }
        assert!(shifts.len() > 50, "the shifts vary: {}", shifts.len());
    }
}
