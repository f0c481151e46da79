//! Sentence pairs for the translator: WMT16 English-German after BPE, in the
//! MLPerf `rnn_translator` layout, or synthetic pairs of the same shapes.
//!
//! A data folder holds `vocab.bpe.32000` (one BPE token per line) and
//! `train.tok.clean.bpe.32000.en` / `.de` (one tokenised sentence per line,
//! aligned), and for evaluation the held-out `newstest2014.tok.bpe.32000.en`
//! / `.de` (the reference's test set, same layout). As in the reference, the special tokens `<pad>`, `<unk>`, `<s>`,
//! `<\s>` come first, the vocabulary is padded to a multiple of 8, every
//! sentence is wrapped in `<s> ... <\s>`, and pairs longer than the maximum
//! length are dropped.

use crate::data::DataError;
use std::collections::HashMap;
use std::path::Path;
use tch::{Device, Kind, Tensor};

/// Padding token.
pub const PAD: i64 = 0;
/// Unknown word.
pub const UNK: i64 = 1;
/// Beginning of sentence.
pub const BOS: i64 = 2;
/// End of sentence.
pub const EOS: i64 = 3;
/// The special tokens, in index order.
pub const SPECIALS: [&str; 4] = ["<pad>", "<unk>", "<s>", "<\\s>"];
/// Vocabulary file of the folder.
pub const VOCAB_FILE: &str = "vocab.bpe.32000";
/// Source-side training file.
pub const SRC_FILE: &str = "train.tok.clean.bpe.32000.en";
/// Target-side training file.
pub const TGT_FILE: &str = "train.tok.clean.bpe.32000.de";
/// Source-side held-out file.
pub const HELD_OUT_SRC_FILE: &str = "newstest2014.tok.bpe.32000.en";
/// Target-side held-out file.
pub const HELD_OUT_TGT_FILE: &str = "newstest2014.tok.bpe.32000.de";

/// Tokenised training pairs.
#[derive(Debug, Clone, PartialEq)]
pub struct Pairs {
    /// Vocabulary size (specials included, padded to a multiple of 8).
    pub vocab: i64,
    /// `(source, target)` token sequences, each `<s> ... <\s>`.
    pub pairs: Vec<(Vec<i64>, Vec<i64>)>,
}

fn read(dir: &Path, name: &str) -> Result<String, DataError> {
    let path = dir.join(name);
    std::fs::read_to_string(&path).map_err(|e| DataError::io(&path, e))
}

/// Loads the training pairs of a WMT16 BPE folder, keeping those of at most
/// `max_length` tokens (`<s>` and `<\s>` included) on both sides.
pub fn load(dir: &Path, max_length: usize) -> Result<Pairs, DataError> {
    load_split(dir, [SRC_FILE, TGT_FILE], max_length)
}

/// Loads the held-out pairs of a WMT16 BPE folder, as [`load`] does the
/// training pairs.
pub fn load_held_out(dir: &Path, max_length: usize) -> Result<Pairs, DataError> {
    load_split(dir, [HELD_OUT_SRC_FILE, HELD_OUT_TGT_FILE], max_length)
}

fn load_split(dir: &Path, [src_file, tgt_file]: [&str; 2], max_length: usize) -> Result<Pairs, DataError> {
    let vocab_text = read(dir, VOCAB_FILE)?;
    let mut index: HashMap<&str, i64> = SPECIALS.iter().enumerate().map(|(i, s)| (*s, i as i64)).collect();
    for token in vocab_text.lines().map(str::trim).filter(|t| !t.is_empty()) {
        let next = index.len() as i64;
        index.entry(token).or_insert(next);
    }
    let vocab = (index.len() as i64 + 7) / 8 * 8;
    let (src, tgt) = (read(dir, src_file)?, read(dir, tgt_file)?);
    let (src_lines, tgt_lines) = (src.lines().count(), tgt.lines().count());
    if src_lines != tgt_lines {
        return Err(DataError::format(
            &dir.join(tgt_file),
            format!("{tgt_lines} lines but {src_file} has {src_lines}: the two sides must be aligned line by line"),
        ));
    }
    let encode = |line: &str| -> Vec<i64> {
        let words = line.split_whitespace().map(|w| index.get(w).copied().unwrap_or(UNK));
        std::iter::once(BOS).chain(words).chain(std::iter::once(EOS)).collect()
    };
    let pairs: Vec<_> = src
        .lines()
        .zip(tgt.lines())
        .map(|(s, t)| (encode(s), encode(t)))
        .filter(|(s, t)| s.len() <= max_length && t.len() <= max_length)
        .collect();
    if pairs.is_empty() {
        return Err(DataError::Missing {
            path: dir.to_path_buf(),
            expected: format!("sentence pair of at most {max_length} tokens in {src_file} / {tgt_file}"),
        });
    }
    Ok(Pairs { vocab, pairs })
}

/// Synthetic pairs: sources of random lengths (6 to `max_length` tokens)
/// with Zipf-distributed words, each target a deterministic rewrite of its
/// source (every word shifted by one index, order kept), so there is
/// something to learn.
pub fn synthetic(count: usize, vocab: i64, max_length: usize, rng_seed: u64) -> Pairs {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(rng_seed);
    let first = SPECIALS.len() as i64;
    let words = vocab - first - 1;
    let weights: Vec<f64> = (0..words).map(|r| 1.0 / (r + 1) as f64).collect();
    let dist = rand::distr::weighted::WeightedIndex::new(&weights).expect("positive weights");
    let pairs = (0..count)
        .map(|_| {
            let len = rng.random_range(4..=max_length.max(6) - 2);
            let body: Vec<i64> = (0..len).map(|_| first + rng.sample(&dist) as i64).collect();
            let wrap =
                |w: &mut dyn Iterator<Item = i64>| std::iter::once(BOS).chain(w).chain([EOS]).collect::<Vec<_>>();
            (wrap(&mut body.iter().copied()), wrap(&mut body.iter().map(|w| w + 1)))
        })
        .collect();
    Pairs { vocab, pairs }
}

/// A padded batch on the device.
#[derive(Debug)]
pub struct Batch {
    /// Source tokens `[b, t_src]`.
    pub src: Tensor,
    /// Decoder inputs: targets without their last token `[b, t_tgt - 1]`.
    pub tgt_in: Tensor,
    /// Decoder targets: targets without `<s>` `[b, t_tgt - 1]`.
    pub tgt_out: Tensor,
    /// Target tokens to predict (padding excluded).
    pub tokens: i64,
}

fn padded(seqs: &[&[i64]], device: Device) -> Tensor {
    let width = seqs.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut flat = vec![PAD; seqs.len() * width];
    for (row, s) in flat.chunks_mut(width.max(1)).zip(seqs) {
        row[..s.len()].copy_from_slice(s);
    }
    Tensor::from_slice(&flat).view([seqs.len() as i64, width as i64]).to(device)
}

/// Builds the batch of `pairs[indices]`.
pub fn batch(pairs: &Pairs, indices: &[usize], device: Device) -> Batch {
    let src: Vec<&[i64]> = indices.iter().map(|&i| pairs.pairs[i].0.as_slice()).collect();
    let tgt: Vec<&[i64]> = indices.iter().map(|&i| pairs.pairs[i].1.as_slice()).collect();
    let tgt = padded(&tgt, device);
    let width = tgt.size()[1];
    let tgt_out = tgt.narrow(1, 1, width - 1);
    let tokens = tgt_out.ne(PAD).sum(Kind::Int64).int64_value(&[]);
    Batch { src: padded(&src, device), tgt_in: tgt.narrow(1, 0, width - 1), tgt_out, tokens }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(src: &str, tgt: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(VOCAB_FILE), "the\nhouse\nd@@\nas\nHaus\n").unwrap();
        std::fs::write(dir.path().join(SRC_FILE), src).unwrap();
        std::fs::write(dir.path().join(TGT_FILE), tgt).unwrap();
        dir
    }

    #[test]
    fn bpe_files_become_wrapped_token_ids() {
        let dir = folder("the house\nthe the the the the the\n", "d@@ as Haus\nzebra\n");
        let p = load(dir.path(), 6).unwrap();
        assert_eq!(p.vocab, 16, "4 specials + 5 tokens, padded to 8s");
        // The second pair has 8 source tokens with <s> and <\s>: dropped.
        assert_eq!(p.pairs, vec![(vec![BOS, 4, 5, EOS], vec![BOS, 6, 7, 8, EOS])]);
        let p = load(folder("a\n", "zebra\n").path(), 50).unwrap();
        assert_eq!(p.pairs[0], (vec![BOS, UNK, EOS], vec![BOS, UNK, EOS]));
    }

    #[test]
    fn misaligned_or_missing_files_are_named() {
        let dir = folder("a\nb\n", "a\n");
        let e = load(dir.path(), 50).unwrap_err().to_string();
        assert!(e.contains(TGT_FILE) && e.contains("aligned"), "{e}");
        std::fs::remove_file(dir.path().join(VOCAB_FILE)).unwrap();
        let e = load(dir.path(), 50).unwrap_err().to_string();
        assert!(e.contains(VOCAB_FILE), "{e}");
    }

    #[test]
    fn batches_are_padded_and_shifted() {
        let p = Pairs { vocab: 16, pairs: vec![(vec![2, 4, 3], vec![2, 5, 6, 3]), (vec![2, 3], vec![2, 3])] };
        let b = batch(&p, &[0, 1], Device::Cpu);
        assert_eq!(Vec::<i64>::try_from(&b.src.reshape([-1])).unwrap(), [2, 4, 3, 2, 3, 0]);
        assert_eq!(Vec::<i64>::try_from(&b.tgt_in.reshape([-1])).unwrap(), [2, 5, 6, 2, 3, 0]);
        assert_eq!(Vec::<i64>::try_from(&b.tgt_out.reshape([-1])).unwrap(), [5, 6, 3, 3, 0, 0]);
        assert_eq!(b.tokens, 4);
    }

    #[test]
    fn synthetic_targets_rewrite_their_sources() {
        let p = synthetic(20, 64, 12, 0);
        for (s, t) in &p.pairs {
            assert!(s.len() >= 6 && s.len() <= 12, "{}", s.len());
            assert_eq!(s.len(), t.len());
            assert!(s[1..s.len() - 1].iter().zip(&t[1..t.len() - 1]).all(|(a, b)| b - a == 1));
            assert!(t.iter().all(|&w| w < 64));
        }
    }
}
