//! wikitext-2-style text: `train.txt`, `valid.txt`, `test.txt` (the layout of
//! PyTorch's word language model example), lines of space-separated tokens
//! as wikitext's: ` = Heading = `, blank lines, paragraphs with `,` `.`
//! `@-@` and `<unk>`. Word frequencies follow Zipf's law, every word of the
//! vocabulary occurs in the training split, and each split holds exactly
//! the tokens of the real set as the loaders count them (words plus one
//! `<eos>` per line). Full: 2,088,628 / 217,646 / 245,569 tokens over a
//! vocabulary of 33,278 (with `<eos>`); small: 20,000 / 2,000 / 2,000 over 2,000.
//!
//! Beside them, gpt's token ids ([`super::tokens`]): `tokenizer.json`, a
//! byte-level BPE of at most 16,384 tokens (small: 1,024) learnt from
//! `train.txt`, `ids.json`, and `train.ids` and `valid.ids`.

use super::rng::stream;
use super::tokens::TokenIds;
use super::words::{word, Zipf};
use super::{FileSpec, Generator};
use crate::prepare::catalog::Scale;
use rand::Rng;
use std::sync::OnceLock;

/// Tokens every vocabulary has first (frequent, as in wikitext).
const COMMON: [&str; 8] = ["the", ",", ".", "of", "<unk>", "and", "=", "@-@"];

/// wikitext-2 at one scale and seed.
#[derive(Debug)]
pub struct Wikitext2 {
    splits: [(&'static str, usize); 3],
    vocabulary: Vec<String>,
    zipf: Zipf,
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
        Wikitext2 { splits, zipf: Zipf::new(vocabulary.len()), vocabulary, seed, bpe_vocab, ids: OnceLock::new() }
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
