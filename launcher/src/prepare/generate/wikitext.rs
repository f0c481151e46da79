//! wikitext-2-style text: `train.txt`, `valid.txt`, `test.txt` (the layout of
//! PyTorch's word language model example), lines of space-separated tokens
//! as wikitext's: ` = Heading = `, blank lines, paragraphs with `,` `.`
//! `@-@` and `<unk>`. Word frequencies follow Zipf's law, every word of the
//! vocabulary occurs in the training split, and each split holds exactly
//! the tokens of the real set as the loaders count them (words plus one
//! `<eos>` per line). Full: 2,088,628 / 217,646 / 245,569 tokens over a
//! vocabulary of 33,278 (with `<eos>`); small: 20,000 / 2,000 / 2,000 over 2,000.

use super::rng::stream;
use super::words::{word, Zipf};
use super::{FileSpec, Generator};
use crate::prepare::catalog::Scale;
use rand::Rng;

/// Tokens every vocabulary has first (frequent, as in wikitext).
const COMMON: [&str; 8] = ["the", ",", ".", "of", "<unk>", "and", "=", "@-@"];

/// wikitext-2 at one scale and seed.
#[derive(Debug)]
pub struct Wikitext2 {
    splits: [(&'static str, usize); 3],
    vocabulary: Vec<String>,
    zipf: Zipf,
    seed: u64,
}

impl Wikitext2 {
    /// Its sizes at `scale`.
    pub fn new(scale: Scale, seed: u64) -> Self {
        let (splits, vocab) = match scale {
            Scale::Small => ([("train.txt", 20_000), ("valid.txt", 2_000), ("test.txt", 2_000)], 2_000),
            Scale::Full => ([("train.txt", 2_088_628), ("valid.txt", 217_646), ("test.txt", 245_569)], 33_278),
        };
        // The loader's vocabulary also holds `<eos>`.
        let words = vocab - 1;
        let vocabulary: Vec<String> =
            COMMON.iter().map(|w| w.to_string()).chain((0..words - COMMON.len()).map(word)).collect();
        Wikitext2 { splits, zipf: Zipf::new(vocabulary.len()), vocabulary, seed }
    }
}

impl Generator for Wikitext2 {
    fn files(&self) -> Vec<FileSpec> {
        self.splits.iter().map(|(name, _)| FileSpec::new(*name, 1)).collect()
    }

    fn chunk(&self, file: usize, _chunk: usize) -> Vec<u8> {
        let (name, tokens) = self.splits[file];
        let mut rng = stream(self.seed, name, 0, 0);
        // The training split names every word once, spread over the text.
        let sweep = if file == 0 { self.vocabulary.len() } else { 0 };
        let stride = (tokens / (2 * sweep + 1)).max(1);
        let (mut swept, mut next) = (0, 0);
        let mut used = 0;
        let mut text = String::new();
        while used < tokens {
            let kind = rng.random_range(0..10);
            let mut line: Vec<&str> = match kind {
                0..=2 => Vec::new(),
                3 => {
                    let title = (0..rng.random_range(1..4)).map(|_| self.zipf.draw(&mut rng));
                    let title: Vec<&str> = title.map(|w| self.vocabulary[w].as_str()).collect();
                    [&["="][..], &title, &["="]].concat()
                }
                _ => {
                    (0..rng.random_range(20..160)).map(|_| self.vocabulary[self.zipf.draw(&mut rng)].as_str()).collect()
                }
            };
            for (i, token) in line.iter_mut().enumerate() {
                if used + i >= next && swept < sweep {
                    *token = &self.vocabulary[swept];
                    swept += 1;
                    next += stride;
                }
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
    use std::collections::HashSet;

    #[test]
    fn splits_hold_their_token_counts_and_train_holds_every_word() {
        let w = Wikitext2::new(Scale::Small, 3);
        for (file, (_, tokens)) in w.splits.iter().enumerate() {
            let text = String::from_utf8(w.chunk(file, 0)).unwrap();
            let counted: usize = text.lines().map(|l| l.split_whitespace().count() + 1).sum();
            assert_eq!(counted, *tokens, "{file}");
            if file == 0 {
                let words: HashSet<&str> = text.split_whitespace().collect();
                assert_eq!(words.len(), 1_999, "every word but <eos>");
            }
        }
    }
}
