//! Rotary position embeddings (RoFormer; Llama's "rotate half" layout): the
//! two halves of each head's vector are the real and imaginary parts of
//! `head_dim / 2` complex numbers, the `i`-th rotated at position `p` by the
//! angle `p * base^(-2i / head_dim)`.

use tch::{Device, Kind, Tensor};

/// The frequency base (Llama's and RoFormer's).
pub const BASE: f64 = 10_000.0;

/// The cosines and sines of every position's angles, laid out for
/// [`Rope::apply`]: `[seq_len, head_dim]` each, the cosines twice over and
/// the sines negated then as they are, computed in float64 and kept in
/// float32.
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
        let (cos, sin) = (angles.cos(), angles.sin());
        Rope {
            cos: Tensor::cat(&[&cos, &cos], 1).to_kind(Kind::Float),
            sin: Tensor::cat(&[-&sin, sin], 1).to_kind(Kind::Float),
        }
    }

    /// The tables shared with this one.
    pub fn shallow_clone(&self) -> Self {
        Rope { cos: self.cos.shallow_clone(), sin: self.sin.shallow_clone() }
    }

    /// Rotates `x`, `[batch, heads, seq, head_dim]`, by its positions; the
    /// tables are cast to `x`'s type. With `x = [x1, x2]` (its halves):
    /// `[x1 cos - x2 sin, x2 cos + x1 sin] = x [cos, cos] + [x2, x1] [-sin,
    /// sin]`, one copy and three elementwise passes instead of six. The
    /// halves are taken by `chunk`, whose backward pass is one `cat`
    /// (`narrow`'s zero-fills a buffer of `x`'s size for each half).
    pub fn apply(&self, x: &Tensor) -> Tensor {
        let seq = x.size()[2];
        let cos = self.cos.narrow(0, 0, seq).to_kind(x.kind());
        let sin = self.sin.narrow(0, 0, seq).to_kind(x.kind());
        let [x1, x2]: [Tensor; 2] = x.chunk(2, 3).try_into().expect("two halves");
        let swapped = Tensor::cat(&[x2, x1], 3);
        x * cos + swapped * sin
    }
}
