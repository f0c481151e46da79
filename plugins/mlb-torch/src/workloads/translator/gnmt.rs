//! A GNMT-like translation model, as the MLPerf `rnn_translator` reference
//! builds it (teacher forcing, batch first):
//!
//! - a shared embedding (`vocab x hidden`, padding index 0);
//! - the encoder: a bidirectional LSTM, an LSTM over its `2 hidden` outputs,
//!   then `layers - 2` LSTMs with residual connections;
//! - the decoder: an LSTM whose outputs query a normalised Bahdanau attention
//!   over the encoder outputs, then `layers - 1` LSTMs over `[x, attention]`
//!   (residual from the second on), and a `Linear(hidden, vocab)` classifier.
//!
//! Every weight starts uniform in [-init, init] (0.1 in the reference) but
//! the attention's normalisation (scalar `1 / sqrt(hidden)`, bias 0); dropout
//! 0.2 between layers.
//! Sequences are padded, not packed: padding positions are masked out of the
//! attention and the loss.

use tch::nn::{self, Init, Module, RNN};
use tch::{Kind, Tensor};

/// Sizes of the model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GnmtConfig {
    /// Shared vocabulary (embedding rows, classifier outputs).
    pub vocab: i64,
    /// Width of embeddings and LSTM states (1024).
    pub hidden: i64,
    /// LSTM layers of the encoder and of the decoder (4).
    pub layers: usize,
    /// Dropout between layers (0.2).
    pub dropout: f64,
    /// Bound of the uniform initialisation of the weights (0.1).
    pub init: f64,
}

impl GnmtConfig {
    /// The initialisation of every weight but the attention's normalisation.
    fn init(&self) -> Init {
        Init::Uniform { lo: -self.init, up: self.init }
    }
}

fn lstm(vs: nn::Path, input: i64, hidden: i64, bidirectional: bool, init: Init) -> nn::LSTM {
    let config = nn::RNNConfig {
        bidirectional,
        batch_first: true,
        w_ih_init: init,
        w_hh_init: init,
        b_ih_init: Some(init),
        b_hh_init: Some(init),
        ..Default::default()
    };
    nn::lstm(vs, input, hidden, config)
}

/// Normalised Bahdanau (additive) attention: `score(q, k) = v . tanh(Wq q +
/// Wk k + b)` with `v = g v' / |v'|`.
#[derive(Debug)]
pub struct Attention {
    query: nn::Linear,
    key: nn::Linear,
    att: Tensor,
    scalar: Tensor,
    bias: Tensor,
}

impl Attention {
    fn new(vs: nn::Path, units: i64, init: Init) -> Self {
        let linear = |name: &str| {
            nn::linear(&vs / name, units, units, nn::LinearConfig { ws_init: init, bs_init: None, bias: false })
        };
        Attention {
            query: linear("linear_q"),
            key: linear("linear_k"),
            att: vs.var("linear_att", &[units], init),
            scalar: vs.var("normalize_scalar", &[1], Init::Const(1.0 / (units as f64).sqrt())),
            bias: vs.var("normalize_bias", &[units], Init::Const(0.0)),
        }
    }

    /// Context vectors `[b, t_q, n]` for queries `[b, t_q, n]` over keys
    /// `[b, t_k, n]`; `pad` (`[b, t_k]`, true at padding) is masked out.
    pub fn forward(&self, query: &Tensor, keys: &Tensor, pad: &Tensor) -> Tensor {
        let q = self.query.forward(query).unsqueeze(2);
        let k = self.key.forward(keys).unsqueeze(1);
        let v = &self.att / self.att.norm() * &self.scalar;
        let scores = (q + k + &self.bias).tanh().matmul(&v);
        let scores = scores.masked_fill(&pad.unsqueeze(1), -65504.0);
        scores.softmax(-1, Kind::Float).bmm(keys)
    }
}

/// The encoder, attention decoder and classifier.
#[derive(Debug)]
pub struct Gnmt {
    embedding: nn::Embedding,
    encoder: Vec<nn::LSTM>,
    decoder_attention_rnn: nn::LSTM,
    attention: Attention,
    decoder: Vec<nn::LSTM>,
    classifier: nn::Linear,
    dropout: f64,
}

impl Gnmt {
    /// Builds the model under `vs`.
    pub fn new(vs: &nn::Path, c: &GnmtConfig) -> Self {
        assert!(c.layers >= 2, "GNMT needs at least two layers");
        let (h, init) = (c.hidden, c.init());
        let enc = vs / "encoder";
        let mut encoder = vec![lstm(&enc / 0, h, h, true, init), lstm(&enc / 1, 2 * h, h, false, init)];
        encoder.extend((2..c.layers).map(|i| lstm(&enc / i, h, h, false, init)));
        let dec = vs / "decoder";
        let decoder = (0..c.layers - 1).map(|i| lstm(&dec / "rnn" / i, 2 * h, h, false, init)).collect();
        let embedding = nn::embedding(
            vs / "embedding",
            c.vocab,
            h,
            nn::EmbeddingConfig {
                ws_init: init,
                padding_idx: crate::workloads::translator::data::PAD,
                ..Default::default()
            },
        );
        Gnmt {
            embedding,
            encoder,
            decoder_attention_rnn: lstm(&dec / "att_rnn", h, h, false, init),
            attention: Attention::new(&dec / "attn", h, init),
            decoder,
            classifier: nn::linear(
                dec / "classifier",
                h,
                c.vocab,
                nn::LinearConfig { ws_init: init, bs_init: Some(init), bias: true },
            ),
            dropout: c.dropout,
        }
    }

    /// Encoder outputs `[b, t_src, hidden]` for source tokens `[b, t_src]`.
    pub fn encode(&self, src: &Tensor, train: bool) -> Tensor {
        let mut x = self.embedding.forward(src).dropout(self.dropout, train);
        x = self.encoder[0].seq(&x).0.dropout(self.dropout, train);
        x = self.encoder[1].seq(&x).0;
        for layer in &self.encoder[2..] {
            x = layer.seq(&x.dropout(self.dropout, train)).0 + &x;
        }
        x
    }

    /// Logits `[b, t_tgt, vocab]` for decoder inputs `[b, t_tgt]` (teacher
    /// forcing) given the encoder outputs and the source padding mask.
    pub fn decode(&self, tgt_in: &Tensor, context: &Tensor, src_pad: &Tensor, train: bool) -> Tensor {
        let x = self.embedding.forward(tgt_in).dropout(self.dropout, train);
        let x = self.decoder_attention_rnn.seq(&x).0;
        let attn = self.attention.forward(&x, context, src_pad);
        let mut x = self.decoder[0].seq(&Tensor::cat(&[x.dropout(self.dropout, train), attn.shallow_clone()], 2)).0;
        for layer in &self.decoder[1..] {
            let input = Tensor::cat(&[x.dropout(self.dropout, train), attn.shallow_clone()], 2);
            x = layer.seq(&input).0 + &x;
        }
        self.classifier.forward(&x)
    }

    /// Logits for a batch: encode `src`, decode `tgt_in`.
    pub fn forward(&self, src: &Tensor, tgt_in: &Tensor, train: bool) -> Tensor {
        let src_pad = src.eq(crate::workloads::translator::data::PAD);
        let context = self.encode(src, train);
        self.decode(tgt_in, &context, &src_pad, train)
    }
}

/// Label-smoothed cross entropy summed over the non-padding positions:
/// `(1 - s) * nll + s * mean(-log p)` per token (MLPerf's `LabelSmoothing`).
pub fn label_smoothing_loss(logits: &Tensor, target: &Tensor, smoothing: f64) -> Tensor {
    let vocab = logits.size()[logits.dim() - 1];
    let logprobs = logits.reshape([-1, vocab]).log_softmax(-1, Kind::Float);
    let target = target.reshape([-1]);
    let keep = target.ne(crate::workloads::translator::data::PAD).to_kind(Kind::Float);
    let nll = -logprobs.gather(1, &target.unsqueeze(1), false).squeeze_dim(1);
    let smooth = -logprobs.mean_dim(-1, false, Kind::Float);
    ((nll * (1.0 - smoothing) + smooth * smoothing) * keep).sum(Kind::Float)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::Device;

    #[test]
    fn shapes_follow_the_batch_and_vocabulary() {
        tch::manual_seed(0);
        let vs = nn::VarStore::new(Device::Cpu);
        let m = Gnmt::new(&vs.root(), &GnmtConfig { vocab: 40, hidden: 16, layers: 4, dropout: 0.2, init: 0.1 });
        let src = Tensor::from_slice(&[2i64, 7, 9, 3, 2, 5, 3, 0]).reshape([2, 4]);
        let tgt = Tensor::from_slice(&[2i64, 8, 11, 2, 6, 0]).reshape([2, 3]);
        assert_eq!(m.encode(&src, true).size(), [2, 4, 16]);
        assert_eq!(m.forward(&src, &tgt, true).size(), [2, 3, 40]);
        // Shared embedding: one table for source and target.
        assert_eq!(vs.variables().keys().filter(|k| k.contains("embedding")).count(), 1);
    }

    #[test]
    fn padded_keys_get_no_attention() {
        tch::manual_seed(0);
        let vs = nn::VarStore::new(Device::Cpu);
        let a = Attention::new(vs.root(), 8, Init::Uniform { lo: -0.1, up: 0.1 });
        let keys = Tensor::randn([1, 3, 8], (Kind::Float, Device::Cpu));
        let query = Tensor::randn([1, 2, 8], (Kind::Float, Device::Cpu));
        let pad = Tensor::from_slice(&[false, false, true]).reshape([1, 3]);
        let with_pad = a.forward(&query, &keys, &pad);
        // Changing the padded key changes nothing.
        let other = keys.copy();
        let _ = other.narrow(1, 2, 1).fill_(100.0);
        let diff = (a.forward(&query, &other, &pad) - with_pad).abs().max().double_value(&[]);
        assert!(diff < 1e-6, "{diff}");
    }

    #[test]
    fn label_smoothing_matches_its_definition_and_skips_padding() {
        let logits = Tensor::from_slice(&[1.0f32, 2.0, 0.5, 0.0, 0.0, 9.0]).reshape([1, 2, 3]);
        let target = Tensor::from_slice(&[1i64, 0]).reshape([1, 2]);
        let loss = label_smoothing_loss(&logits, &target, 0.1).double_value(&[]);
        let lse = (1f64.exp() + 2f64.exp() + 0.5f64.exp()).ln();
        let logp = [1.0 - lse, 2.0 - lse, 0.5 - lse];
        let want = 0.9 * -logp[1] + 0.1 * -(logp.iter().sum::<f64>() / 3.0);
        assert!((loss - want).abs() < 1e-5, "{loss} vs {want}");
    }
}
