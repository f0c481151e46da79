//! A WMT16 English-German corpus after BPE, in the layout of the MLPerf
//! `rnn_translator` reference: `vocab.bpe.32000` (one BPE token per line;
//! continuation pieces end in `@@`) and `train.tok.clean.bpe.32000.en` /
//! `.de`, aligned line by line. Tokens are Zipf-distributed; each German
//! sentence is its English one with every token mapped through a fixed
//! bijection and neighbouring tokens sometimes swapped, so there is
//! something to learn. Lengths run from 3 to about 100 tokens, most under
//! 50. Full: 4,500,966 pairs over 32,000 tokens (WMT16 en-de after
//! cleaning); small: 4,000 pairs over 1,000.
//!
//! The held-out split is `newstest2014.tok.bpe.32000.en` / `.de`, the test
//! set's name in the MLPerf reference: other sentences made the same way
//! (full: 3,003 pairs, as newstest2014; small: 300).

use super::rng::stream;
use super::words::{permutation_step, word, Zipf};
use super::{chunk_range, chunks_of, FileSpec, Generator};
use crate::scale::Scale;
use rand::Rng;

/// File names, as the translator reads them: the vocabulary, the training
/// pairs, the held-out pairs.
const FILES: [&str; 5] = [
    "vocab.bpe.32000",
    "train.tok.clean.bpe.32000.en",
    "train.tok.clean.bpe.32000.de",
    "newstest2014.tok.bpe.32000.en",
    "newstest2014.tok.bpe.32000.de",
];
const PER_CHUNK: usize = 20_000;

/// WMT16 at one scale and seed.
#[derive(Debug)]
pub struct Wmt16 {
    pairs: usize,
    /// Held-out pairs.
    test_pairs: usize,
    vocabulary: Vec<String>,
    zipf: Zipf,
    seed: u64,
}

impl Wmt16 {
    /// Its sizes at `scale`.
    pub fn new(scale: Scale, seed: u64) -> Self {
        let (pairs, test_pairs, vocab) = match scale {
            Scale::Small => (4_000, 300, 1_000),
            Scale::Full => (4_500_966, 3_003, 32_000),
        };
        // Every third token is a continuation piece (`ka@@`), as BPE vocabularies have.
        let vocabulary = (0..vocab).map(|i| if i % 3 == 2 { format!("{}@@", word(i)) } else { word(i) }).collect();
        Wmt16 { pairs, test_pairs, vocabulary, zipf: Zipf::new(vocab), seed }
    }

    /// The German token of English token `t`: a bijection of the vocabulary.
    fn translate(&self, t: usize) -> usize {
        let n = self.vocabulary.len();
        (t * permutation_step(n) + 7) % n
    }
}

impl Generator for Wmt16 {
    fn files(&self) -> Vec<FileSpec> {
        let (train, test) = (chunks_of(self.pairs, PER_CHUNK), chunks_of(self.test_pairs, PER_CHUNK));
        let chunks = [1, train, train, test, test];
        FILES.iter().zip(chunks).map(|(name, chunks)| FileSpec::new(*name, chunks)).collect()
    }

    fn chunk(&self, file: usize, chunk: usize) -> Vec<u8> {
        if file == 0 {
            return self.vocabulary.iter().flat_map(|t| [t.as_str(), "\n"]).collect::<String>().into_bytes();
        }
        // Both sides of a chunk draw the same English sentences; the
        // held-out split draws from streams of its own.
        let (split, pairs) = if file <= 2 { ("wmt16", self.pairs) } else { ("wmt16 newstest2014", self.test_pairs) };
        let german = matches!(file, 2 | 4);
        let mut rng = stream(self.seed, split, chunk as u64, 0);
        let mut out = String::new();
        for _ in chunk_range(chunk, PER_CHUNK, pairs) {
            let long = rng.random_bool(0.05);
            let len = if long {
                rng.random_range(50..100)
            } else {
                3 + (0..3).map(|_| rng.random_range(0..16)).sum::<usize>()
            };
            let mut tokens: Vec<usize> = (0..len).map(|_| self.zipf.draw(&mut rng)).collect();
            let swap = rng.random_range(0..len);
            if german {
                tokens.iter_mut().for_each(|t| *t = self.translate(*t));
                tokens.swap(swap, (swap + 1) % len);
            }
            let line: Vec<&str> = tokens.iter().map(|&t| self.vocabulary[t].as_str()).collect();
            out.push_str(&line.join(" "));
            out.push('\n');
        }
        out.into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sides_align_and_translate_token_by_token() {
        let w = Wmt16::new(Scale::Small, 0);
        let side = |file: usize| String::from_utf8(w.chunk(file, 0)).unwrap();
        let (en, de) = (side(1), side(2));
        assert_eq!(en.lines().count(), 4_000);
        let (held_out_en, held_out_de) = (side(3), side(4));
        assert_eq!((held_out_en.lines().count(), held_out_de.lines().count()), (300, 300));
        let training: std::collections::HashSet<&str> = en.lines().collect();
        let copies = held_out_en.lines().filter(|l| l.split(' ').count() > 6 && training.contains(l)).count();
        assert_eq!(copies, 0, "the held-out sentences are not training sentences");
        let pairs = en.lines().zip(de.lines()).take(50).chain(held_out_en.lines().zip(held_out_de.lines()).take(50));
        for (e, d) in pairs {
            let (mut e, mut d): (Vec<&str>, Vec<&str>) = (e.split(' ').collect(), d.split(' ').collect());
            assert_eq!(e.len(), d.len());
            let index = |t: &str| w.vocabulary.iter().position(|v| v == t).unwrap();
            let mut mapped: Vec<usize> = e.drain(..).map(|t| w.translate(index(t))).collect();
            let mut german: Vec<usize> = d.drain(..).map(index).collect();
            mapped.sort();
            german.sort();
            assert_eq!(mapped, german);
        }
        let short = en.lines().filter(|l| l.split(' ').count() <= 10).count();
        assert!(short > 40, "pairs short enough for small models: {short}");
    }
}
