//! Causal self-attention: one projection to queries, keys and values,
//! rotary positions on queries and keys, libtorch's fused
//! `scaled_dot_product_attention` with the causal mask, and the output
//! projection. No biases (Llama).

use super::rope::Rope;
use tch::nn::{self, Module};
use tch::Tensor;

/// The attention of one block.
#[derive(Debug)]
pub struct Attention {
    qkv: nn::Linear,
    out: nn::Linear,
    heads: i64,
}

/// `softmax(Q K^T / sqrt(d) + causal mask) V` through libtorch's fused
/// kernel; `q`, `k`, `v` are `[batch, heads, seq, head_dim]`.
pub fn causal(q: &Tensor, k: &Tensor, v: &Tensor) -> Tensor {
    Tensor::scaled_dot_product_attention::<Tensor>(q, k, v, None, 0.0, true, None, false)
}

impl Attention {
    /// Under `p`: `qkv` (`width -> 3 width`) and `out` (`width -> width`),
    /// initialised N(0, 0.02); `out` scaled by `1 / sqrt(2 layers)` (GPT-2's
    /// residual scaling).
    pub fn new(p: &nn::Path, width: i64, heads: i64, layers: i64) -> Self {
        let linear = |name: &str, out: i64, std: f64| {
            let config =
                nn::LinearConfig { ws_init: nn::Init::Randn { mean: 0.0, stdev: std }, bs_init: None, bias: false };
            nn::linear(p / name, width, out, config)
        };
        let std = 0.02;
        Attention {
            qkv: linear("qkv", 3 * width, std),
            out: linear("out", width, std / (2.0 * layers as f64).sqrt()),
            heads,
        }
    }

    /// The attention sharing this one's weights.
    pub fn shallow_clone(&self) -> Self {
        Attention { qkv: shallow_linear(&self.qkv), out: shallow_linear(&self.out), heads: self.heads }
    }

    /// The query, key and value projection.
    pub fn qkv(&self) -> &nn::Linear {
        &self.qkv
    }

    /// The output projection.
    pub fn out(&self) -> &nn::Linear {
        &self.out
    }

    /// Attends over `x`, `[batch, seq, width]`.
    pub fn forward(&self, x: &Tensor, rope: &Rope) -> Tensor {
        let (b, t, w) = x.size3().expect("[batch, seq, width]");
        let qkv = self.qkv.forward(x).view([b, t, 3, self.heads, w / self.heads]).permute([2, 0, 3, 1, 4]);
        // One stack in the backward pass (unbind's), not three zero-filled
        // buffers summed (indexing's).
        let [q, k, v]: [Tensor; 3] = qkv.unbind(0).try_into().expect("three projections");
        let (q, k) = (rope.apply(&q), rope.apply(&k));
        let y = causal(&q, &k, &v).transpose(1, 2).reshape([b, t, w]);
        self.out.forward(&y)
    }
}

/// A linear layer sharing `linear`'s weights.
pub fn shallow_linear(linear: &nn::Linear) -> nn::Linear {
    nn::Linear { ws: linear.ws.shallow_clone(), bs: linear.bs.as_ref().map(Tensor::shallow_clone) }
}
