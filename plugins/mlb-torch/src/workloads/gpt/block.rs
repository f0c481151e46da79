//! A pre-norm transformer block (Llama's): `x + attention(norm(x))`, then
//! `x + mlp(norm(x))`, with RMSNorm and a SwiGLU MLP.

use super::attention::{shallow_linear, Attention};
use super::rope::Rope;
use tch::nn::{self, Module};
use tch::Tensor;

/// RMSNorm's epsilon (Llama's).
const EPS: f64 = 1e-5;

/// RMSNorm: `x / sqrt(mean(x^2) + eps) * weight` over the last dimension,
/// through libtorch's `rms_norm`.
#[derive(Debug)]
pub struct RmsNorm {
    weight: Tensor,
    width: i64,
}

impl RmsNorm {
    /// A norm of `width` with its weight (ones) under `p`.
    pub fn new(p: &nn::Path, width: i64) -> Self {
        RmsNorm { weight: p.var("weight", &[width], nn::Init::Const(1.0)), width }
    }

    fn shallow_clone(&self) -> Self {
        RmsNorm { weight: self.weight.shallow_clone(), width: self.width }
    }
}

impl Module for RmsNorm {
    fn forward(&self, x: &Tensor) -> Tensor {
        x.rms_norm([self.width], Some(&self.weight), EPS)
    }
}

/// The SwiGLU MLP: `down(silu(gate(x)) * up(x))`, gate and up in one
/// projection.
#[derive(Debug)]
pub struct SwiGlu {
    gate_up: nn::Linear,
    down: nn::Linear,
}

impl SwiGlu {
    /// `width -> 2 hidden -> width` under `p`, N(0, 0.02), `down` scaled by
    /// `1 / sqrt(2 layers)`.
    pub fn new(p: &nn::Path, width: i64, hidden: i64, layers: i64) -> Self {
        let config = |std: f64| nn::LinearConfig {
            ws_init: nn::Init::Randn { mean: 0.0, stdev: std },
            bs_init: None,
            bias: false,
        };
        SwiGlu {
            gate_up: nn::linear(p / "gate_up", width, 2 * hidden, config(0.02)),
            down: nn::linear(p / "down", hidden, width, config(0.02 / (2.0 * layers as f64).sqrt())),
        }
    }

    fn shallow_clone(&self) -> Self {
        SwiGlu { gate_up: shallow_linear(&self.gate_up), down: shallow_linear(&self.down) }
    }
}

impl Module for SwiGlu {
    fn forward(&self, x: &Tensor) -> Tensor {
        // One cat in the backward pass (chunk's), not two zero-filled buffers
        // summed (narrow's).
        let [gate, up]: [Tensor; 2] = self.gate_up.forward(x).chunk(2, -1).try_into().expect("gate and up");
        self.down.forward(&(gate.silu() * up))
    }
}

/// One block.
#[derive(Debug)]
pub struct Block {
    attn_norm: RmsNorm,
    attn: Attention,
    mlp_norm: RmsNorm,
    mlp: SwiGlu,
}

impl Block {
    /// A block of `width`, `heads` heads and an MLP of `hidden`, in a model
    /// of `layers` blocks.
    pub fn new(p: &nn::Path, width: i64, heads: i64, hidden: i64, layers: i64) -> Self {
        Block {
            attn_norm: RmsNorm::new(&(p / "attn_norm"), width),
            attn: Attention::new(&(p / "attn"), width, heads, layers),
            mlp_norm: RmsNorm::new(&(p / "mlp_norm"), width),
            mlp: SwiGlu::new(&(p / "mlp"), width, hidden, layers),
        }
    }

    /// The block sharing this one's weights (for a checkpointed segment to
    /// own).
    pub fn shallow_clone(&self) -> Self {
        Block {
            attn_norm: self.attn_norm.shallow_clone(),
            attn: self.attn.shallow_clone(),
            mlp_norm: self.mlp_norm.shallow_clone(),
            mlp: self.mlp.shallow_clone(),
        }
    }

    /// The weights of the block.
    pub fn params(&self) -> Vec<Tensor> {
        let norms = [&self.attn_norm.weight, &self.mlp_norm.weight].map(Tensor::shallow_clone);
        let linears = [self.attn.qkv(), self.attn.out(), &self.mlp.gate_up, &self.mlp.down];
        norms.into_iter().chain(linears.into_iter().map(|l| l.ws.shallow_clone())).collect()
    }

    /// The block applied to `x`, `[batch, seq, width]`.
    pub fn forward(&self, x: &Tensor, rope: &Rope) -> Tensor {
        let x = x + self.attn.forward(&self.attn_norm.forward(x), rope);
        &x + self.mlp.forward(&self.mlp_norm.forward(&x))
    }
}
