//! Token data: the ids `mlb prepare` stores beside a prepared wikitext
//! (`ids.json`, `train.ids`), or synthetic tokens. Each sequence of a batch
//! is a window of `seq_len + 1` tokens starting at a random position; its
//! first `seq_len` tokens are the input, its last `seq_len` the targets.
//! A rank of a data parallel group takes its share of the windows of one
//! batch of `batch x world` drawn from the group's seed, so that N ranks of
//! batch B see the sequences one rank of batch N B sees.
//!
//! The windows' starts are drawn from ChaCha12 (the generator `StdRng`
//! wraps, seeded alike, so the same stream), whose position in its stream
//! a checkpoint saves ([`Tokens::position`]) and a restore seeks to.

use crate::data::DataError;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha12Rng;
use std::path::Path;
use tch::{Device, Kind, Tensor};

/// The file describing the id files: `{"vocab_size": N, "bytes": 2 | 4}`.
pub const IDS_META: &str = "ids.json";
/// The training ids: little-endian unsigned integers of `bytes` bytes each.
pub const TRAIN_IDS: &str = "train.ids";

/// Synthetic tokens generated when no data is given.
const SYNTHETIC_TOKENS: i64 = 1 << 20;

/// A token stream and the batches drawn from it.
#[derive(Debug)]
pub struct Tokens {
    /// The stream, on the CPU.
    ids: Tensor,
    vocab: i64,
    rng: ChaCha12Rng,
    /// This rank and the group's size.
    share: (i64, i64),
}

impl Tokens {
    /// The training ids of a prepared folder and its vocabulary size, drawn
    /// from by `rank` of `world` ranks from `seed`.
    pub fn load(dir: &Path, seed: u64, (rank, world): (usize, usize)) -> Result<Self, DataError> {
        let (ids, vocab) = read_ids(dir, TRAIN_IDS)?;
        let (ids, rng, share) =
            (Tensor::from_slice(&ids), ChaCha12Rng::seed_from_u64(seed), (rank as i64, world as i64));
        Ok(Tokens { ids, vocab, rng, share })
    }

    /// Zipf-distributed synthetic tokens over `vocab`, drawn from by
    /// `rank` of `world` ranks from `seed` (which also draws the tokens).
    pub fn synthetic(vocab: i64, seed: u64, (rank, world): (usize, usize)) -> Self {
        tch::manual_seed(seed as i64);
        let ids = crate::synth::zipf_tokens(SYNTHETIC_TOKENS, vocab, Device::Cpu);
        Tokens { ids, vocab, rng: ChaCha12Rng::seed_from_u64(seed), share: (rank as i64, world as i64) }
    }

    /// The vocabulary size.
    pub fn vocab(&self) -> i64 {
        self.vocab
    }

    /// The number of tokens.
    pub fn len(&self) -> i64 {
        self.ids.size()[0]
    }

    /// Whether the stream is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where the draws of the windows' starts are: the generator's position
    /// in its stream, in 32-bit words.
    pub fn position(&self) -> u128 {
        self.rng.get_word_pos()
    }

    /// Goes on drawing from `position` (what [`position`](Self::position)
    /// said of an instance of the same seed).
    pub fn seek(&mut self, position: u128) {
        self.rng.set_word_pos(position);
    }

    /// This rank's `batch` random windows: inputs and targets, `[batch,
    /// seq_len]` each, on `device`.
    pub fn batch(&mut self, batch: i64, seq_len: i64, device: Device) -> (Tensor, Tensor) {
        let last = self.len() - seq_len - 1;
        let (rank, world) = self.share;
        let starts: Vec<i64> = (0..batch * world).map(|_| self.rng.random_range(0..=last)).collect();
        let mine = &starts[(rank * batch) as usize..((rank + 1) * batch) as usize];
        let windows: Vec<Tensor> = mine.iter().map(|&s| self.ids.narrow(0, s, seq_len + 1)).collect();
        let windows = Tensor::stack(&windows, 0).to_kind(Kind::Int64).to_device(device);
        (windows.narrow(1, 0, seq_len), windows.narrow(1, 1, seq_len))
    }
}

/// The ids of the file `name` of a prepared folder `dir` (described by its
/// [`IDS_META`]) and the vocabulary size.
pub fn read_ids(dir: &Path, name: &str) -> Result<(Vec<i64>, i64), DataError> {
    let meta_path = dir.join(IDS_META);
    let missing = || DataError::Missing {
        path: dir.to_path_buf(),
        expected: format!("{IDS_META} and {name} (the token ids `mlb prepare wikitext-2` writes)"),
    };
    let meta = std::fs::read_to_string(&meta_path).map_err(|_| missing())?;
    let meta: serde_json::Value =
        serde_json::from_str(&meta).map_err(|e| DataError::format(&meta_path, e.to_string()))?;
    let vocab = meta["vocab_size"].as_i64().filter(|v| *v > 0);
    let bytes = meta["bytes"].as_u64().filter(|b| *b == 2 || *b == 4);
    let (Some(vocab), Some(bytes)) = (vocab, bytes) else {
        return Err(DataError::format(&meta_path, "expected {\"vocab_size\": N > 0, \"bytes\": 2 or 4}"));
    };
    let path = dir.join(name);
    let raw = std::fs::read(&path).map_err(|_| missing())?;
    let ids: Vec<i64> = if bytes == 2 {
        raw.chunks_exact(2).map(|c| i64::from(u16::from_le_bytes([c[0], c[1]]))).collect()
    } else {
        raw.chunks_exact(4).map(|c| i64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]]))).collect()
    };
    if let Some(bad) = ids.iter().find(|&&id| id >= vocab) {
        return Err(DataError::format(&path, format!("token id {bad} is not below the vocabulary size {vocab}")));
    }
    Ok((ids, vocab))
}
