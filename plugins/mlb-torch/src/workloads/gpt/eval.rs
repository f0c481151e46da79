//! gpt's evaluation: the perplexity (exp of the mean cross entropy per
//! token) on the first `eval_items` (default [`EVAL_ITEMS`]) consecutive
//! `seq_len + 1`-token windows of the held-out ids: `valid.ids` beside the
//! training ids of a prepared wikitext, else synthetic tokens of the same
//! distribution drawn from another seed. Lower is better.

use super::data::read_ids;
use super::model::Model;
use crate::data::DataError;
use crate::precision::MixedPrecision;
use mlb_plugin::Quality;
use rand::SeedableRng;
use std::path::Path;
use tch::{Device, Kind, Tensor};

/// The held-out ids of a prepared wikitext.
pub const VALID_IDS: &str = "valid.ids";
/// Held-out sequences an evaluation reads when `eval_items` is absent.
pub const EVAL_ITEMS: u64 = 64;
/// What gpt's evaluation measures, and its default target.
pub const QUALITY: Quality = Quality { metric: "perplexity", unit: "", higher_is_better: false, target: 20.0 };

/// The held-out windows, `[n, seq_len + 1]` token ids on the device.
#[derive(Debug)]
pub struct HeldOut {
    windows: Tensor,
}

impl HeldOut {
    /// At most `count` windows of `seq_len + 1` tokens of `ids`, on `device`.
    fn from_ids(ids: &[i64], seq_len: i64, count: u64, device: Device) -> Option<Self> {
        let width = (seq_len + 1) as usize;
        let n = (ids.len() / width).min(count as usize);
        (n > 0).then(|| HeldOut {
            windows: Tensor::from_slice(&ids[..n * width]).view([n as i64, width as i64]).to_device(device),
        })
    }

    /// The held-out windows of the prepared folder `dir`, whose ids must be
    /// below `vocab` (the training ids' vocabulary).
    pub fn load(dir: &Path, vocab: i64, seq_len: i64, count: u64, device: Device) -> Result<Self, String> {
        let (ids, valid_vocab) = read_ids(dir, VALID_IDS).map_err(|e: DataError| e.to_string())?;
        if valid_vocab != vocab {
            return Err(format!("{VALID_IDS} has a vocabulary of {valid_vocab}, the training ids {vocab}"));
        }
        Self::from_ids(&ids, seq_len, count, device)
            .ok_or_else(|| format!("{} holds fewer than {} tokens", dir.join(VALID_IDS).display(), seq_len + 1))
    }

    /// `count` windows of Zipf-distributed tokens over `vocab` drawn from
    /// the held-out seed of `seed` (libtorch's generator untouched).
    pub fn synthetic(vocab: i64, seed: u64, seq_len: i64, count: u64, device: Device) -> Self {
        let mut rng = rand::rngs::StdRng::seed_from_u64(crate::synth::held_out_seed(seed));
        let ids = crate::synth::zipf_tokens_from(count as usize * (seq_len + 1) as usize, vocab, &mut rng);
        Self::from_ids(&ids, seq_len, count, device).expect("count >= 1 windows")
    }

    /// The perplexity of `model` (run as training runs it, in `mixed`
    /// precision) on the windows, `batch` of them at a time.
    pub fn perplexity(&self, model: &Model, mixed: &MixedPrecision, batch: i64) -> f64 {
        let (n, width) = (self.windows.size()[0], self.windows.size()[1]);
        let mut total = 0.0;
        for start in (0..n).step_by(batch.max(1) as usize) {
            let windows = self.windows.narrow(0, start, batch.min(n - start));
            let (input, target) = (windows.narrow(1, 0, width - 1), windows.narrow(1, 1, width - 1));
            let loss = mixed.forward(|| model.loss(&input, &target)).to_kind(Kind::Double);
            total += loss.double_value(&[]) * windows.size()[0] as f64;
        }
        (total / n as f64).exp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_are_consecutive_and_bounded_by_the_count() {
        let ids: Vec<i64> = (0..20).collect();
        let held = HeldOut::from_ids(&ids, 4, 3, Device::Cpu).unwrap();
        assert_eq!(held.windows.size(), [3, 5]);
        assert_eq!(Vec::<i64>::try_from(held.windows.get(1)).unwrap(), [5, 6, 7, 8, 9]);
        assert_eq!(HeldOut::from_ids(&ids, 4, 10, Device::Cpu).unwrap().windows.size(), [4, 5]);
        assert!(HeldOut::from_ids(&ids[..4], 4, 3, Device::Cpu).is_none());
    }
}
