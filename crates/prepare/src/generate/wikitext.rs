//! wikitext-2-style text: `train.txt`, `valid.txt`, `test.txt` (the layout of
//! PyTorch's word language model example), lines of space-separated tokens
//! as wikitext's: ` = Heading = `, blank lines, paragraphs with `,` `.`
//! `@-@` and `<unk>`. Word frequencies follow Zipf's law, every word of the
//! vocabulary occurs in the training split, and each split holds exactly
//! the tokens of the real set as the loaders count them (words plus one
//! `<eos>` per line). Full: 2,088,628 / 217,646 / 245,569 tokens over a
//! vocabulary of 33,278 (with `<eos>`); small: 20,000 / 2,000 / 2,000 over 2,000.
//!
//! A fixed Markov chain over the vocabulary gives the text n-gram structure
//! a language model learns: every word has four successors (drawn with Zipf
//! frequencies, fixed by the seed), and each word of a line but its first
//! is, 85 times in 100, one of its predecessor's successors (weighted 8, 4,
//! 2, 1), else a word drawn by Zipf frequency. The three splits follow the
//! same chain, so what is learnt on `train.txt` predicts `valid.txt` and
//! `test.txt`.
//!
//! Beside them, gpt's token ids ([`super::tokens`]): `tokenizer.json`, a
//! byte-level BPE of at most 16,384 tokens (small: 1,024) learnt from
//! `train.txt`, `ids.json`, and `train.ids` and `valid.ids`.

use super::rng::stream;
use super::tokens::TokenIds;
use super::words::{word, Zipf};
use super::{FileSpec, Generator};
use crate::scale::Scale;
use rand::distr::weighted::WeightedIndex;
use rand::distr::Distribution;
use rand::Rng;
use std::sync::OnceLock;

/// Tokens every vocabulary has first (frequent, as in wikitext).
const COMMON: [&str; 8] = ["the", ",", ".", "of", "<unk>", "and", "=", "@-@"];
/// The weights of a word's successors in the chain.
const SUCCESSOR_WEIGHTS: [u32; 4] = [8, 4, 2, 1];
/// The chance that a word follows its predecessor through the chain.
const FOLLOW: f64 = 0.85;

/// wikitext-2 at one scale and seed.
#[derive(Debug)]
pub struct Wikitext2 {
    splits: [(&'static str, usize); 3],
    vocabulary: Vec<String>,
    zipf: Zipf,
    /// Each word's successors in the chain.
    successors: Vec<[usize; SUCCESSOR_WEIGHTS.len()]>,
    /// Draws the place of a successor by [`SUCCESSOR_WEIGHTS`].
    successor: WeightedIndex<u32>,
    seed: u64,
    /// The tokenizer's vocabulary size at this scale.
    bpe_vocab: usize,
    /// The tokenizer and ids, made once for the four files that hold them.
    ids: OnceLock<TokenIds>,
}

/// The files after the three splits, made from the trained tokenizer.
const TOKEN_FILES: [&str; 4] = ["tokenizer.json", "ids.json", "train.ids", "valid.ids"];

impl Wikitext2 {
    /// Its sizes at `scale`.
    pub fn new(scale: Scale, seed: u64) -> Self {
        let (splits, vocab, bpe_vocab) = match scale {
            Scale::Small => ([("train.txt", 20_000), ("valid.txt", 2_000), ("test.txt", 2_000)], 2_000, 1_024),
            Scale::Full => ([("train.txt", 2_088_628), ("valid.txt", 217_646), ("test.txt", 245_569)], 33_278, 16_384),
        };
        // The loader's vocabulary also holds `<eos>`.
        let words = vocab - 1;
        let vocabulary: Vec<String> =
            COMMON.iter().map(|w| w.to_string()).chain((0..words - COMMON.len()).map(word)).collect();
        let zipf = Zipf::new(vocabulary.len());
        let successors = (0..vocabulary.len())
            .map(|w| {
                let mut rng = stream(seed, "wikitext-2 chain", w as u64, 0);
                std::array::from_fn(|_| zipf.draw(&mut rng))
            })
            .collect();
        let successor = WeightedIndex::new(SUCCESSOR_WEIGHTS).expect("positive weights");
        Wikitext2 { splits, vocabulary, zipf, successors, successor, seed, bpe_vocab, ids: OnceLock::new() }
    }

    /// The next word after `previous` (none at a line's start).
    fn next_word(&self, previous: Option<usize>, rng: &mut impl Rng) -> usize {
        match previous {
            Some(p) if rng.random_bool(FOLLOW) => self.successors[p][self.successor.sample(rng)],
            _ => self.zipf.draw(rng),
        }
    }

    /// The text of split `file`.
    fn text(&self, file: usize) -> String {
        String::from_utf8(self.split(file)).expect("the generated text is ASCII")
    }

    /// The tokenizer trained on the training split and the ids of the
    /// training and validation splits.
    fn ids(&self) -> &TokenIds {
        self.ids.get_or_init(|| {
            TokenIds::new(&self.text(0), &self.text(1), self.bpe_vocab)
                .unwrap_or_else(|e| panic!("training the BPE tokenizer on the generated text: {e}"))
        })
    }
}

impl Generator for Wikitext2 {
    fn files(&self) -> Vec<FileSpec> {
        let names = self.splits.iter().map(|(name, _)| *name).chain(TOKEN_FILES);
        names.map(|name| FileSpec::new(name, 1)).collect()
    }

    fn chunk(&self, file: usize, _chunk: usize) -> Vec<u8> {
        match file.checked_sub(self.splits.len()) {
            None => self.split(file),
            Some(0) => self.ids().tokenizer.clone().into_bytes(),
            Some(1) => self.ids().meta().into_bytes(),
            Some(2) => self.ids().bytes(&self.ids().train),
            Some(_) => self.ids().bytes(&self.ids().valid),
        }
    }
}

impl Wikitext2 {
    /// The bytes of split `file`.
    fn split(&self, file: usize) -> Vec<u8> {
        let (name, tokens) = self.splits[file];
        let mut rng = stream(self.seed, name, 0, 0);
        // The training split names every word once, spread over the text.
        let sweep = if file == 0 { self.vocabulary.len() } else { 0 };
        let stride = (tokens / (2 * sweep + 1)).max(1);
        let (mut swept, mut next) = (0, 0);
        let mut used = 0;
        let mut text = String::new();
        while used < tokens {
            let (heading, words) = match rng.random_range(0..10) {
                0..=2 => (false, 0),
                3 => (true, rng.random_range(1..4)),
                _ => (false, rng.random_range(20..160)),
            };
            let mut line: Vec<&str> = Vec::new();
            if heading {
                line.push("=");
            }
            let mut previous = None;
            for _ in 0..words {
                let word = if used + line.len() >= next && swept < sweep {
                    swept += 1;
                    next += stride;
                    swept - 1
                } else {
                    self.next_word(previous, &mut rng)
                };
                line.push(&self.vocabulary[word]);
                previous = Some(word);
            }
            if heading {
                line.push("=");
            }
            // The last line stops at the split's size (its `<eos>` included).
            line.truncate(tokens - used - 1);
            used += line.len() + 1;
            text.push(' ');
            for token in line {
                text.push_str(token);
                text.push(' ');
            }
            text.push('\n');
        }
        text.into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashMap, HashSet};

    /// Bits per token on `valid` of a unigram model (add-one) and of a
    /// bigram model (interpolated with the unigram, Witten-Bell), both
    /// counted on `train`; tokens as the loader counts them (words and one
    /// `<eos>` a line).
    fn cross_entropies(train: &str, valid: &str) -> (f64, f64) {
        let tokens = |text: &str| -> Vec<String> {
            text.lines().flat_map(|l| l.split_whitespace().chain(["<eos>"]).map(str::to_string)).collect()
        };
        let (train, valid) = (tokens(train), tokens(valid));
        let mut unigram: HashMap<&str, f64> = HashMap::new();
        let mut bigram: HashMap<(&str, &str), f64> = HashMap::new();
        let mut followers: HashMap<&str, HashSet<&str>> = HashMap::new();
        for pair in train.windows(2) {
            *unigram.entry(&pair[0]).or_default() += 1.0;
            *bigram.entry((&pair[0], &pair[1])).or_default() += 1.0;
            followers.entry(&pair[0]).or_default().insert(&pair[1]);
        }
        let (n, types) = (train.len() as f64, unigram.len() as f64 + 1.0);
        let p_unigram = |w: &str| (unigram.get(w).copied().unwrap_or(0.0) + 1.0) / (n + types);
        let (mut uni_bits, mut bi_bits) = (0.0, 0.0);
        for pair in valid.windows(2) {
            let (previous, word) = (pair[0].as_str(), pair[1].as_str());
            let seen = unigram.get(previous).copied().unwrap_or(0.0);
            let distinct = followers.get(previous).map_or(0, HashSet::len) as f64;
            let lambda = if seen > 0.0 { seen / (seen + distinct) } else { 0.0 };
            let p_bigram = bigram.get(&(previous, word)).copied().unwrap_or(0.0) / seen.max(1.0);
            uni_bits -= p_unigram(word).log2();
            bi_bits -= (lambda * p_bigram + (1.0 - lambda) * p_unigram(word)).log2();
        }
        let count = (valid.len() - 1) as f64;
        (uni_bits / count, bi_bits / count)
    }

    #[test]
    fn a_bigram_model_of_the_training_split_predicts_the_held_out_split_better_than_a_unigram_one() {
        let w = Wikitext2::new(Scale::Small, 0);
        let (unigram, bigram) = cross_entropies(&w.text(0), &w.text(1));
        // Perplexity at least quartered (seed 0: 6.9 and 3.7 bits).
        assert!(bigram < unigram - 2.0, "bits per token: unigram {unigram:.2}, bigram {bigram:.2}");
    }

    #[test]
    fn splits_hold_their_token_counts_and_train_holds_every_word() {
        let w = Wikitext2::new(Scale::Small, 3);
        for (file, (_, tokens)) in w.splits.iter().enumerate() {
            let text = w.text(file);
            let counted: usize = text.lines().map(|l| l.split_whitespace().count() + 1).sum();
            assert_eq!(counted, *tokens, "{file}");
            if file == 0 {
                let words: HashSet<&str> = text.split_whitespace().collect();
                assert_eq!(words.len(), 1_999, "every word but <eos>");
            }
        }
    }
}
