//! The decoder-only model: token embedding, blocks, final RMSNorm and the
//! output projection (the embedding itself when tied); optionally each block
//! checkpointed ([`crate::checkpoint`]).

use super::block::{Block, RmsNorm};
use super::rope::Rope;
use super::shape::Shape;
use crate::checkpoint::checkpoint;
use tch::nn::{self, Module};
use tch::Tensor;

/// Whether the variable `name`, `tensor`, gets weight decay: the matrices
/// (the embedding, so the tied output projection, and every projection) do;
/// the norms' weights, the only vectors, do not.
pub fn decays(_name: &str, tensor: &Tensor) -> bool {
    tensor.dim() >= 2
}

/// The model.
#[derive(Debug)]
pub struct Model {
    embedding: Tensor,
    blocks: Vec<Block>,
    norm: RmsNorm,
    /// The output projection's weight, `[vocab, width]`: the embedding when
    /// tied.
    head: Tensor,
    rope: Rope,
    /// Whether each block's activations are recomputed in the backward pass
    /// instead of kept.
    checkpoint: bool,
}

impl Model {
    /// A model of `shape` under `p`, each block checkpointed when
    /// `checkpoint`.
    pub fn new(p: &nn::Path, shape: &Shape, checkpoint: bool) -> Self {
        let init = nn::Init::Randn { mean: 0.0, stdev: 0.02 };
        let embedding = p.var("embedding", &[shape.vocab, shape.width], init);
        let blocks = (0..shape.layers)
            .map(|i| Block::new(&(p / "blocks" / i), shape.width, shape.heads, shape.ffn(), shape.layers))
            .collect();
        let head =
            if shape.tied { embedding.shallow_clone() } else { p.var("head", &[shape.vocab, shape.width], init) };
        Model {
            embedding,
            blocks,
            norm: RmsNorm::new(&(p / "norm"), shape.width),
            head,
            rope: Rope::new(shape.seq_len, shape.head_dim(), p.device()),
            checkpoint,
        }
    }

    /// The logits of `tokens`, `[batch, seq]` -> `[batch, seq, vocab]`.
    pub fn forward(&self, tokens: &Tensor) -> Tensor {
        let mut x = Tensor::embedding(&self.embedding, tokens, -1, false, false);
        for block in &self.blocks {
            x = if self.checkpoint {
                let (segment, rope) = (block.shallow_clone(), self.rope.shallow_clone());
                checkpoint(&x, &block.params(), move |x| segment.forward(x, &rope))
            } else {
                block.forward(&x, &self.rope)
            };
        }
        self.norm.forward(&x).linear::<Tensor>(&self.head, None)
    }

    /// The mean cross entropy of predicting `targets` from `tokens`, in
    /// float32.
    pub fn loss(&self, tokens: &Tensor, targets: &Tensor) -> Tensor {
        let logits = self.forward(tokens);
        let vocab = logits.size()[2];
        crate::ops::cross_entropy(&logits.view([-1, vocab]), &targets.reshape([-1]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::Device;

    #[test]
    fn matrices_decay_norms_do_not_and_weights_start_as_gpt2s() {
        tch::manual_seed(0);
        let vs = nn::VarStore::new(Device::Cpu);
        let shape = Shape { layers: 2, heads: 2, width: 64, seq_len: 16, vocab: 4096, tied: true };
        let _model = Model::new(&vs.root(), &shape, false);
        let vars = vs.variables();
        let mut kept: Vec<&str> = vars.iter().filter(|(n, t)| !decays(n, t)).map(|(n, _)| n.as_str()).collect();
        kept.sort_unstable();
        let norms = ["blocks.0.attn_norm.weight", "blocks.0.mlp_norm.weight", "blocks.1.attn_norm.weight"];
        assert_eq!(kept, [&norms[..], &["blocks.1.mlp_norm.weight", "norm.weight"]].concat());
        let std = |name: &str| vars[name].std(true).double_value(&[]);
        assert!((std("embedding") / 0.02 - 1.0).abs() < 0.05, "{}", std("embedding"));
        assert!((std("blocks.0.attn.qkv.weight") / 0.02 - 1.0).abs() < 0.05);
        // The residual projections: 0.02 / sqrt(2 layers) = 0.01.
        assert!((std("blocks.1.attn.out.weight") / 0.01 - 1.0).abs() < 0.05);
        assert!((std("blocks.1.mlp.down.weight") / 0.01 - 1.0).abs() < 0.05);
    }
}
