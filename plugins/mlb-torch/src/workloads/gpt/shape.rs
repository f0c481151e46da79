//! The model's shape: sizes by name, overrides, and what follows from a
//! shape (parameter count, training FLOPs per sequence).

use crate::flops;

/// A named size: layers, heads, width and the default sequence length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    /// The name `size` takes.
    pub name: &'static str,
    /// Transformer blocks.
    pub layers: i64,
    /// Attention heads.
    pub heads: i64,
    /// Model width (embedding size).
    pub width: i64,
    /// Default sequence length.
    pub seq_len: i64,
}

/// The sizes `size` names (docs/workloads.md has the table): `tiny` for
/// tests, and GPT-2 small, medium and GPT-3 XL's layers and widths.
pub const SIZES: [Size; 4] = [
    Size { name: "tiny", layers: 2, heads: 2, width: 64, seq_len: 64 },
    Size { name: "124m", layers: 12, heads: 12, width: 768, seq_len: 1024 },
    Size { name: "350m", layers: 24, heads: 16, width: 1024, seq_len: 1024 },
    Size { name: "1.3b", layers: 24, heads: 16, width: 2048, seq_len: 1024 },
];

/// GPT-2's vocabulary (50,257) padded to a multiple of 64: the vocabulary of
/// synthetic tokens.
pub const SYNTHETIC_VOCAB: i64 = 50_304;

/// The shape of one model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Transformer blocks.
    pub layers: i64,
    /// Attention heads.
    pub heads: i64,
    /// Model width.
    pub width: i64,
    /// Tokens per sequence.
    pub seq_len: i64,
    /// Vocabulary size.
    pub vocab: i64,
    /// Whether the output projection is the token embedding.
    pub tied: bool,
}

impl Shape {
    /// The width of a head.
    pub fn head_dim(&self) -> i64 {
        self.width / self.heads
    }

    /// The hidden width of the SwiGLU MLP: 8/3 of the width (the MLP's
    /// parameters then equal a 4x GELU MLP's), rounded up to a multiple of
    /// 64.
    pub fn ffn(&self) -> i64 {
        (8 * self.width / 3 + 63) / 64 * 64
    }

    /// Parameters of the blocks and the final norm: per block the attention's
    /// query, key, value and output projections (4 w^2), the MLP's gate, up
    /// and down projections (3 w f) and two RMSNorm weights (2 w).
    pub fn block_params(&self) -> i64 {
        let (w, f) = (self.width, self.ffn());
        self.layers * (4 * w * w + 3 * w * f + 2 * w) + w
    }

    /// All parameters: the blocks, the token embedding and, untied, the
    /// output projection.
    pub fn params(&self) -> i64 {
        let embedding = self.vocab * self.width;
        self.block_params() + if self.tied { embedding } else { 2 * embedding }
    }

    /// Training FLOPs of one sequence (forward and backward):
    /// [`flops::transformer`] (PaLM's `6 N T + 12 L w T^2`) where `N` is the
    /// parameters that multiply every token: the blocks and the output
    /// projection, `vocab x width` whether tied or not (the input embedding
    /// is a lookup, no FLOPs).
    pub fn flops_per_sequence(&self) -> f64 {
        let n = (self.block_params() + self.vocab * self.width) as f64;
        flops::transformer(n, self.layers as f64, self.width as f64, self.seq_len as f64)
    }
}

/// The formula of [`Shape::flops_per_sequence`] in a report's words.
pub const FLOPS_FORMULA: &str =
    "6 x N x T + 12 x layers x width x T^2 per sequence (PaLM appendix B; N: parameters of the blocks and the output projection, T: seq_len)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_124m_size_has_gpt2_small_s_parameter_count() {
        let s = SIZES[1];
        let shape =
            Shape { layers: s.layers, heads: s.heads, width: s.width, seq_len: 1024, vocab: 50_304, tied: true };
        assert_eq!(shape.ffn(), 2048);
        let params = shape.params() as f64 / 1e6;
        assert!((123.0..126.0).contains(&params), "{params}M");
        let untied = Shape { tied: false, ..shape };
        assert_eq!(untied.params() - shape.params(), 50_304 * 768);
        assert_eq!(untied.flops_per_sequence(), shape.flops_per_sequence(), "tying saves parameters, not FLOPs");
    }
}
