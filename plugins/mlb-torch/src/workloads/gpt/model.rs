//! The decoder-only model: token embedding, blocks, final RMSNorm and the
//! output projection (the embedding itself when tied); optionally each block
//! checkpointed ([`crate::checkpoint`]).

use super::block::{Block, RmsNorm};
use super::rope::Rope;
use super::shape::Shape;
use crate::checkpoint::checkpoint;
use tch::nn::{self, Module};
use tch::{Kind, Tensor};

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
        logits.view([-1, vocab]).to_kind(Kind::Float).cross_entropy_for_logits(&targets.reshape([-1]))
    }
}
