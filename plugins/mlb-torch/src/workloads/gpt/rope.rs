//! Rotary position embeddings (RoFormer; Llama's "rotate half" layout): the
//! two halves of each head's vector are the real and imaginary parts of
//! `head_dim / 2` complex numbers, the `i`-th rotated at position `p` by the
//! angle `p * base^(-2i / head_dim)`.

use tch::{Device, Kind, Tensor};

/// The frequency base (Llama's and RoFormer's).
pub const BASE: f64 = 10_000.0;

/// The cosines and sines of every position's angles, `[seq_len, head_dim /
/// 2]` each, computed in float64 and kept in float32.
#[derive(Debug)]
pub struct Rope {
    cos: Tensor,
    sin: Tensor,
}

impl Rope {
    /// The tables for sequences of up to `seq_len` tokens and heads of
    /// `head_dim` (even).
    pub fn new(seq_len: i64, head_dim: i64, device: Device) -> Self {
        let opts = (Kind::Double, device);
        let exponent = Tensor::arange_start_step(0, head_dim, 2, opts) / head_dim as f64;
        let inv_freq = Tensor::from(BASE).to_device(device).pow(&exponent).reciprocal();
        let angles = Tensor::arange(seq_len, opts).outer(&inv_freq);
        Rope { cos: angles.cos().to_kind(Kind::Float), sin: angles.sin().to_kind(Kind::Float) }
    }

    /// The tables shared with this one.
    pub fn shallow_clone(&self) -> Self {
        Rope { cos: self.cos.shallow_clone(), sin: self.sin.shallow_clone() }
    }

    /// Rotates `x`, `[batch, heads, seq, head_dim]`, by its positions; the
    /// tables are cast to `x`'s type.
    pub fn apply(&self, x: &Tensor) -> Tensor {
        let seq = x.size()[2];
        let half = x.size()[3] / 2;
        let cos = self.cos.narrow(0, 0, seq).to_kind(x.kind());
        let sin = self.sin.narrow(0, 0, seq).to_kind(x.kind());
        let (x1, x2) = (x.narrow(3, 0, half), x.narrow(3, half, half));
        Tensor::cat(&[&x1 * &cos - &x2 * &sin, &x2 * &cos + &x1 * &sin], 3)
    }
}
