//! Word corpora in the wikitext-2 format: whitespace-separated tokens, one
//! sentence or paragraph per line; every line ends with an `<eos>` token.
//!
//! A folder holds `train.txt` (with optional `valid.txt`, `test.txt`) as in
//! PyTorch's word language model example, or the original archive's
//! `wiki.train.tokens` (`wiki.valid.tokens`, `wiki.test.tokens`). As in that
//! example, the vocabulary covers all three splits; training reads `train`,
//! an evaluation `valid`.

use super::DataError;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The end-of-line token.
pub const EOS: &str = "<eos>";

/// File name pairs (example layout, wikitext archive layout) per split.
pub const SPLITS: [[&str; 2]; 3] =
    [["train.txt", "wiki.train.tokens"], ["valid.txt", "wiki.valid.tokens"], ["test.txt", "wiki.test.tokens"]];

/// Word <-> index.
#[derive(Debug, Default, Clone)]
pub struct Dictionary {
    index: HashMap<String, i64>,
    words: Vec<String>,
}

impl Dictionary {
    /// The index of `word`, adding it if new.
    pub fn add(&mut self, word: &str) -> i64 {
        if let Some(&i) = self.index.get(word) {
            return i;
        }
        let i = self.words.len() as i64;
        self.words.push(word.to_string());
        self.index.insert(word.to_string(), i);
        i
    }

    /// Number of distinct words.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// True when no word was added.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The word of index `i`.
    pub fn word(&self, i: i64) -> Option<&str> {
        self.words.get(usize::try_from(i).ok()?).map(String::as_str)
    }
}

/// A tokenised corpus: its dictionary and the training split as indices.
#[derive(Debug, Clone)]
pub struct Corpus {
    /// The vocabulary of all splits.
    pub dictionary: Dictionary,
    /// The training split, one index per token.
    pub train: Vec<i64>,
    /// The validation split (held out), one index per token; empty when the
    /// folder has none.
    pub valid: Vec<i64>,
    /// The training file read.
    pub train_file: PathBuf,
}

fn split_file(dir: &Path, names: [&str; 2]) -> Option<PathBuf> {
    names.iter().map(|n| dir.join(n)).find(|p| p.is_file())
}

/// Appends the tokens of `text` (words of each line, then `<eos>`).
pub fn tokenize(text: &str, dictionary: &mut Dictionary, out: &mut Vec<i64>) {
    for line in text.lines() {
        out.extend(line.split_whitespace().map(|w| dictionary.add(w)));
        out.push(dictionary.add(EOS));
    }
}

impl Corpus {
    /// Loads the corpus in `dir`.
    pub fn load(dir: &Path) -> Result<Self, DataError> {
        let train_file = split_file(dir, SPLITS[0]).ok_or_else(|| DataError::Missing {
            path: dir.to_path_buf(),
            expected: "a word corpus: train.txt (and valid.txt, test.txt) or wiki.train.tokens".into(),
        })?;
        let mut dictionary = Dictionary::default();
        let mut train = Vec::new();
        let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| DataError::io(p, e));
        tokenize(&read(&train_file)?, &mut dictionary, &mut train);
        if train.iter().all(|&t| dictionary.word(t) == Some(EOS)) {
            return Err(DataError::format(&train_file, "the training split holds no word"));
        }
        let mut held_out = [Vec::new(), Vec::new()];
        for (names, tokens) in SPLITS[1..].iter().zip(&mut held_out) {
            if let Some(file) = split_file(dir, *names) {
                tokenize(&read(&file)?, &mut dictionary, tokens);
            }
        }
        let [valid, _test] = held_out;
        Ok(Corpus { dictionary, train, valid, train_file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_ends_with_eos_and_words_share_indices() {
        let mut d = Dictionary::default();
        let mut out = Vec::new();
        tokenize(" = Valkyria = \n\nthe cat the\n", &mut d, &mut out);
        let words: Vec<&str> = out.iter().map(|&i| d.word(i).unwrap()).collect();
        assert_eq!(words, ["=", "Valkyria", "=", EOS, EOS, "the", "cat", "the", EOS]);
        assert_eq!(d.len(), 5);
        assert_eq!(out[0], out[2]);
    }
}
