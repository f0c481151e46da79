//! The token ids of gpt beside wikitext-2: a byte-level BPE tokenizer (the
//! `tokenizers` crate, GPT-2's scheme: text as bytes mapped to printable
//! characters, merges learnt from the training split) stored as
//! `tokenizer.json`, and the ids of the training and validation splits as
//! flat little-endian integers (`train.ids`, `valid.ids`: 2 bytes each when
//! every id fits 16 bits, else 4), described by `ids.json` (`vocab_size`,
//! `bytes`), so that the workload reads ids and needs no tokenizer.

use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::models::bpe::{BpeTrainerBuilder, BPE};
use tokenizers::normalizers::NormalizerWrapper;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::processors::PostProcessorWrapper;
use tokenizers::{AddedToken, TokenizerBuilder, TokenizerImpl};

/// The tokenizer's type: BPE over byte-level pre-tokens.
pub type Bpe = TokenizerImpl<BPE, NormalizerWrapper, ByteLevel, PostProcessorWrapper, ByteLevelDecoder>;

/// The token ending a document (GPT-2's), the one special token.
pub const END_OF_TEXT: &str = "<|endoftext|>";

/// A trained tokenizer and the ids of the splits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenIds {
    /// `tokenizer.json`'s text.
    pub tokenizer: String,
    /// The vocabulary size (the special token included).
    pub vocab_size: usize,
    /// The training split's ids.
    pub train: Vec<u32>,
    /// The validation split's ids.
    pub valid: Vec<u32>,
}

/// The byte-level pre-tokenizer: no space added before the text, so that
/// decoding gives the text back byte for byte.
fn byte_level() -> ByteLevel {
    ByteLevel::default().add_prefix_space(false)
}

/// Learns a tokenizer of at most `vocab_size` tokens from the lines of
/// `text`.
pub fn train(text: &str, vocab_size: usize) -> Result<Bpe, tokenizers::Error> {
    let mut trainer = BpeTrainerBuilder::new()
        .vocab_size(vocab_size)
        .min_frequency(2)
        .show_progress(false)
        .initial_alphabet(ByteLevel::alphabet().into_iter().collect())
        .special_tokens(vec![AddedToken::from(END_OF_TEXT, true)])
        .build();
    let mut tokenizer = TokenizerBuilder::new()
        .with_model(BPE::default())
        .with_normalizer(None)
        .with_pre_tokenizer(Some(byte_level()))
        .with_post_processor(None)
        .with_decoder(Some(ByteLevelDecoder::default()))
        .build()?;
    tokenizer.train(&mut trainer, text.split_inclusive('\n'))?;
    Ok(tokenizer)
}

/// The ids of `text`, line by line (each line with its newline).
pub fn encode(tokenizer: &Bpe, text: &str) -> Result<Vec<u32>, tokenizers::Error> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let encodings = tokenizer.encode_batch(lines, false)?;
    Ok(encodings.iter().flat_map(|e| e.get_ids().iter().copied()).collect())
}

impl TokenIds {
    /// Trains on `train` with at most `vocab_size` tokens and encodes both
    /// splits.
    pub fn new(train_text: &str, valid_text: &str, vocab_size: usize) -> Result<Self, tokenizers::Error> {
        let tokenizer = train(train_text, vocab_size)?;
        Ok(TokenIds {
            tokenizer: tokenizer.to_string(true)?,
            vocab_size: tokenizer.get_vocab_size(true),
            train: encode(&tokenizer, train_text)?,
            valid: encode(&tokenizer, valid_text)?,
        })
    }

    /// Bytes per id in the id files: 2 when every id fits 16 bits, else 4.
    pub fn width(&self) -> usize {
        if self.vocab_size <= 1 << 16 {
            2
        } else {
            4
        }
    }

    /// `ids.json`'s text.
    pub fn meta(&self) -> String {
        let meta = serde_json::json!({
            "vocab_size": self.vocab_size,
            "bytes": self.width(),
            "tokenizer": "byte-level BPE (tokenizer.json)",
            "train_tokens": self.train.len(),
            "valid_tokens": self.valid.len(),
        });
        serde_json::to_string_pretty(&meta).expect("a JSON value serialises") + "\n"
    }

    /// `ids` as an id file: little-endian, [`Self::width`] bytes each.
    pub fn bytes(&self, ids: &[u32]) -> Vec<u8> {
        match self.width() {
            2 => ids.iter().flat_map(|&id| (id as u16).to_le_bytes()).collect(),
            _ => ids.iter().flat_map(|&id| id.to_le_bytes()).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = " = Valkyria Chronicles = \n\n the game began development in 2010 , carrying over a large \
                        portion of the work done on Valkyria Chronicles II . \n the game 's battle system , the \
                        BliTZ system , is carried over directly from Valkyria Chronicles . \n";

    #[test]
    fn decoding_the_ids_gives_the_text_back_byte_for_byte() {
        let valid = " the work began in 2011 ; Ünïcödé and ünseen wörds survive . \n";
        let ids = TokenIds::new(TEXT, valid, 300).unwrap();
        let tokenizer: Bpe = serde_json::from_str(&ids.tokenizer).unwrap();
        assert_eq!(tokenizer.decode(&ids.train, false).unwrap(), TEXT);
        assert_eq!(tokenizer.decode(&ids.valid, false).unwrap(), valid);
        assert!(ids.train.len() < TEXT.len(), "merges shorten the text: {} ids", ids.train.len());
        assert!(ids.vocab_size > 256 && ids.vocab_size <= 300, "{}", ids.vocab_size);
        assert_eq!(tokenizer.token_to_id(END_OF_TEXT), Some(0));
    }

    #[test]
    fn the_id_files_are_little_endian_of_the_width_the_vocabulary_needs() {
        let ids = TokenIds { tokenizer: String::new(), vocab_size: 1000, train: vec![1, 258], valid: vec![] };
        assert_eq!(ids.bytes(&ids.train), [1, 0, 2, 1]);
        let wide = TokenIds { vocab_size: 70_000, ..ids };
        assert_eq!(wide.bytes(&[65_537]), [1, 0, 1, 0]);
        let meta: serde_json::Value = serde_json::from_str(&wide.meta()).unwrap();
        assert_eq!((meta["vocab_size"].as_u64(), meta["bytes"].as_u64()), (Some(70_000), Some(4)));
    }
}
