//! wlm / wlmfp16: word-level language model: Embedding -> 2-layer GRU ->
//! Linear, dropout 0.5, truncated back-propagation over `bptt` (35) tokens,
//! SGD lr 20 with the gradient norm clipped to 0.25, cross entropy. Item: a
//! `bptt`-token sequence (each step processes `batch_size` of them).
//!
//! Data: a wikitext-2-format corpus folder (`train.txt` or
//! `wiki.train.tokens`), else a generated corpus of Zipf-distributed tokens
//! over wikitext-2's vocabulary size. The corpus is cut into `batch_size`
//! columns; steps walk down them, carrying the hidden state (detached).
//!
//! `wlmfp16` runs the model in half precision (vocabulary padded to a
//! multiple of 8) with a static loss scale of 128 and fp32 master weights.
//!
//! Evaluation: the perplexity (exp of the mean cross entropy per token,
//! dropout off, a fresh hidden state) on the first `eval_items` (default
//! 200) `bptt`-token sequences of the held-out split: the corpus's
//! `valid.txt` (`wiki.valid.tokens`), else generated tokens of another seed.
//! Lower is better.

use crate::amp::{LossScale, MasterWeights};
use crate::data::corpus::Corpus;
use crate::data::DataSource;
use crate::grad::{clip_grad_norm, grads};
use crate::{Runtime, TorchWorkload};
use mlb_plugin::{Quality, Step, WorkloadArgs};
use rand::SeedableRng;
use tch::nn::{self, Module, OptimizerConfig, RNN};
use tch::{Kind, Tensor};

/// wikitext-2's vocabulary size (train, valid and test words).
pub const WIKITEXT2_VOCAB: i64 = 33_278;
/// wikitext-2's training tokens.
pub const WIKITEXT2_TRAIN_TOKENS: i64 = 2_088_628;
/// Held-out sequences an evaluation reads when `eval_items` is absent.
pub const EVAL_ITEMS: u64 = 200;
/// The default target of the held-out perplexity.
pub const QUALITY_TARGET: f64 = 40.0;
/// Columns the held-out tokens are cut into (PyTorch's example evaluates
/// with batches of 10).
const EVAL_COLUMNS: i64 = 10;

/// Declares the arguments of a variant of wlm (all take the same ones; the
/// variant sets the defaults it lists) and their conversion to [`Settings`].
macro_rules! wlm_args {
    ($(#[$doc:meta])* $name:ident, half = $half:literal, batch_size = $batch:literal $(, loss_scale = $scale:literal)?) => {
        mlb_plugin::workload_args! {
            $(#[$doc])*
            pub struct $name {
                repeat = 15, number = 5;
                /// Sequences per step: the columns the corpus is cut into.
                pub batch_size: u64 = $batch,
                /// Size of the word embeddings.
                pub emsize: u64 = 656,
                /// Hidden units per GRU layer.
                pub nhid: u64 = 656,
                /// Dropout probability, 0 to below 1, after the embedding and
                /// between layers.
                pub dropout: f64 = 0.5,
                /// Learning rate of plain SGD.
                pub lr: f64 = 20,
                /// Gradient norm clipped to this (L2, over all parameters).
                pub clip: f64 = 0.25,
                /// Half precision: a static loss scale (a number, 1 or more)
                /// or `dynamic` (128 when absent).
                pub loss_scale: Option<String> $(= $scale)?,
                /// Tokens per sequence, the truncated back-propagation
                /// length (35 when absent).
                pub bptt: Option<u64>,
                /// GRU layers (2 when absent).
                pub nlayers: Option<u64>,
                /// Vocabulary of the generated corpus (33278, wikitext-2's,
                /// when absent; the corpus's when `data` is given).
                pub vocab: Option<u64>,
                /// Tokens of the generated corpus (2088628, wikitext-2's
                /// training split, when absent).
                pub corpus_tokens: Option<u64>,
                /// Trains in half precision with loss scaling and fp32 master
                /// weights (always, in `wlmfp16`).
                pub fp16: bool,
                /// The recurrent cell: only `GRU` (the default) is built.
                pub model: Option<String>,
                /// A wikitext-2 folder (`train.txt` or `wiki.train.tokens`);
                /// a generated corpus of Zipf-distributed tokens when absent.
                pub data: Option<String>,
                /// Held-out sequences of an evaluation (200 when absent).
                pub eval_items: Option<u64>,
            }
        }

        impl TryFrom<$name> for Settings {
            type Error = mlb_plugin::Error;

            fn try_from(args: $name) -> mlb_plugin::Result<Settings> {
                let model = args.model.unwrap_or_else(|| "GRU".to_string());
                if model != "GRU" {
                    return Err(format!("argument `model` must be GRU (the suite's model), got {model:?}").into());
                }
                let settings = Settings {
                    batch: args.batch_size as i64,
                    bptt: args.bptt.unwrap_or(35) as i64,
                    emsize: args.emsize as i64,
                    nhid: args.nhid as i64,
                    nlayers: args.nlayers.unwrap_or(2) as i64,
                    dropout: args.dropout,
                    lr: args.lr,
                    clip: args.clip,
                    vocab: args.vocab.unwrap_or(WIKITEXT2_VOCAB as u64) as i64,
                    tokens: args.corpus_tokens.unwrap_or(WIKITEXT2_TRAIN_TOKENS as u64) as i64,
                    half: $half || args.fp16,
                    loss_scale: LossScale::parse(args.loss_scale.as_deref(), 128.0)?,
                    data: DataSource::from_arg(args.data),
                    eval_items: args.eval_items.unwrap_or(EVAL_ITEMS).max(1) as i64,
                };
                if settings.batch == 0 || settings.bptt == 0 {
                    return Err("wlm needs batch_size >= 1 and bptt >= 1".into());
                }
                Ok(settings)
            }
        }
    };
}

wlm_args!(
    /// The arguments of wlm, with the original suite's defaults.
    Args, half = false, batch_size = 64
);
wlm_args!(
    /// The arguments of wlmfp16: wlm's, with a batch of 128 and the loss
    /// scale listed.
    HalfArgs, half = true, batch_size = 128, loss_scale = 128
);

/// The declared arguments of each variant of wlm.
pub trait Variant {
    /// The variant's arguments.
    type Args: WorkloadArgs + TryInto<Settings, Error = mlb_plugin::Error>;
}

impl Variant for Wlm<false> {
    type Args = Args;
}

impl Variant for Wlm<true> {
    type Args = HalfArgs;
}

/// Settings of wlm: its arguments checked and converted.
#[derive(Debug, Clone)]
pub struct Settings {
    batch: i64,
    bptt: i64,
    emsize: i64,
    nhid: i64,
    nlayers: i64,
    dropout: f64,
    lr: f64,
    clip: f64,
    vocab: i64,
    tokens: i64,
    half: bool,
    loss_scale: LossScale,
    data: DataSource,
    eval_items: i64,
}

/// The parameter update.
enum Update {
    Fp32(nn::Optimizer),
    Half(MasterWeights),
}

/// The wlm workload; `HALF` selects the `wlmfp16` variant.
pub struct Wlm<const HALF: bool> {
    encoder: nn::Embedding,
    rnn: nn::GRU,
    decoder: nn::Linear,
    update: Update,
    vars: Vec<Tensor>,
    /// The corpus as `[rows, batch]` token indices.
    corpus: Tensor,
    /// The held-out tokens as `[rows, columns]`.
    held_out: Tensor,
    /// The GRU's weights in libtorch's order: an evaluation runs the GRU
    /// without its dropout, which `nn::GRU` applies on every call.
    gru_weights: Vec<Tensor>,
    position: i64,
    hidden: Tensor,
    ntokens: i64,
    args: Settings,
    _vs: nn::VarStore,
}

/// Cuts `tokens` into `batch` columns: `[len / batch, batch]`, the tail dropped.
pub fn batchify(tokens: &Tensor, batch: i64) -> Tensor {
    let rows = tokens.size()[0] / batch;
    tokens.narrow(0, 0, rows * batch).view([batch, rows]).tr().contiguous()
}

impl<const HALF: bool> TorchWorkload for Wlm<HALF>
where
    Self: Variant,
{
    const NAME: &'static str = if HALF { "wlmfp16" } else { "wlm" };
    const DESCRIPTION: &'static str = if HALF {
        "word language model, 2-layer GRU 656, half precision with loss scale 128 and fp32 master weights, SGD"
    } else {
        "word language model, Embedding -> 2-layer GRU 656 -> Linear, bptt 35, SGD lr 20, clip 0.25"
    };
    type Args = <Self as Variant>::Args;
    type Settings = Settings;
    const QUALITY: Option<Quality> =
        Some(Quality { metric: "perplexity", unit: "", higher_is_better: false, target: QUALITY_TARGET });

    fn parse(args: Self::Args) -> mlb_plugin::Result<Settings> {
        args.try_into()
    }

    fn build(args: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
        let device = rt.device();
        let held_out_tokens = (args.eval_items * args.bptt + 1) as usize;
        let (tokens, held_out, vocab) = match args.data.path() {
            Some(dir) => {
                let corpus = Corpus::load(dir)?;
                let valid = &corpus.valid[..corpus.valid.len().min(held_out_tokens)];
                let on_device = |t: &[i64]| Tensor::from_slice(t).to_device(device);
                (on_device(&corpus.train), on_device(valid), corpus.dictionary.len() as i64)
            }
            None => {
                let mut rng = rand::rngs::StdRng::seed_from_u64(crate::synth::held_out_seed(rt.seed()));
                let held_out = crate::synth::zipf_tokens_from(held_out_tokens, args.vocab, &mut rng);
                let tokens = crate::synth::zipf_tokens(args.tokens, args.vocab, device);
                (tokens, Tensor::from_slice(&held_out).to_device(device), args.vocab)
            }
        };
        let columns = EVAL_COLUMNS.min(held_out.size()[0] / 2).max(1);
        let held_out = batchify(&held_out, columns);
        let corpus = batchify(&tokens, args.batch);
        if corpus.size()[0] < args.bptt + 1 {
            return Err(format!(
                "the corpus ({} tokens) is too short for batch_size {} x bptt {}",
                tokens.size()[0],
                args.batch,
                args.bptt + 1
            )
            .into());
        }
        let ntokens = if args.half { (vocab + 7) / 8 * 8 } else { vocab };
        let mut vs = nn::VarStore::new(device);
        let p = vs.root();
        let uniform = nn::Init::Uniform { lo: -0.1, up: 0.1 };
        let encoder = nn::embedding(
            &p / "encoder",
            ntokens,
            args.emsize,
            nn::EmbeddingConfig { ws_init: uniform, ..Default::default() },
        );
        let k = 1.0 / (args.nhid as f64).sqrt();
        let gru_init = nn::Init::Uniform { lo: -k, up: k };
        let rnn_cfg = nn::RNNConfig {
            num_layers: args.nlayers,
            dropout: args.dropout,
            batch_first: false,
            w_ih_init: gru_init,
            w_hh_init: gru_init,
            b_ih_init: Some(gru_init),
            b_hh_init: Some(gru_init),
            ..Default::default()
        };
        let rnn = nn::gru(&p / "rnn", args.emsize, args.nhid, rnn_cfg);
        let decoder = nn::linear(
            &p / "decoder",
            args.nhid,
            ntokens,
            nn::LinearConfig { ws_init: uniform, bs_init: Some(nn::Init::Const(0.0)), bias: true },
        );
        let update = if args.half {
            vs.half();
            Update::Half(MasterWeights::new(vs.trainable_variables(), args.loss_scale))
        } else {
            Update::Fp32(nn::Sgd::default().build(&vs, args.lr)?)
        };
        let kind = if args.half { Kind::Half } else { Kind::Float };
        let hidden = Tensor::zeros([args.nlayers, args.batch, args.nhid], (kind, device));
        let vars = vs.trainable_variables();
        let named = vs.variables();
        let gru_weights = (0..args.nlayers)
            .flat_map(|l| ["weight_ih", "weight_hh", "bias_ih", "bias_hh"].map(|w| format!("rnn.{w}_l{l}")))
            .map(|name| named.get(&name).map(Tensor::shallow_clone).ok_or(format!("wlm: no GRU weight {name}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Wlm {
            encoder,
            rnn,
            decoder,
            update,
            vars,
            corpus,
            held_out,
            gru_weights,
            position: 0,
            hidden,
            ntokens,
            args,
            _vs: vs,
        })
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let bptt = self.args.bptt;
        if self.position + bptt + 1 > self.corpus.size()[0] {
            self.position = 0;
        }
        let input = self.corpus.narrow(0, self.position, bptt);
        let target = self.corpus.narrow(0, self.position + 1, bptt).reshape([-1]);
        self.position += bptt;

        let p = self.args.dropout;
        let emb = self.encoder.forward(&input).dropout(p, true);
        let (output, state) = self.rnn.seq_init(&emb, &nn::GRUState(self.hidden.detach()));
        self.hidden = state.0;
        let logits = self.decoder.forward(&output.dropout(p, true));
        let loss = logits.view([-1, self.ntokens]).to_kind(Kind::Float).cross_entropy_for_logits(&target);
        match &mut self.update {
            Update::Fp32(opt) => {
                opt.zero_grad();
                loss.backward();
                clip_grad_norm(&grads(&self.vars), self.args.clip);
                opt.step();
            }
            Update::Half(master) => {
                master.backward(&loss);
                if master.unscale() {
                    clip_grad_norm(master.grads(), self.args.clip);
                    master.sgd_step(self.args.lr);
                }
            }
        }
        Ok(Step::with_loss(self.args.batch as u64, loss.double_value(&[])))
    }

    fn data(&self) -> &DataSource {
        &self.args.data
    }

    fn eval(&mut self) -> mlb_plugin::Result<f64> {
        let (rows, columns) = (self.held_out.size()[0], self.held_out.size()[1]);
        if rows < 2 {
            return Err("wlm has no held-out tokens to evaluate (the corpus has no valid.txt)".into());
        }
        let kind = self.hidden.kind();
        let mut hidden = Tensor::zeros([self.args.nlayers, columns, self.args.nhid], (kind, self.hidden.device()));
        let (mut total, mut count) = (0.0, 0);
        let mut at = 0;
        while at + 1 < rows {
            let len = self.args.bptt.min(rows - 1 - at);
            let input = self.held_out.narrow(0, at, len);
            let target = self.held_out.narrow(0, at + 1, len).reshape([-1]);
            let layers = self.args.nlayers;
            let (output, state) =
                self.encoder.forward(&input).gru(&hidden, &self.gru_weights, true, layers, 0.0, false, false, false);
            hidden = state;
            let logits = self.decoder.forward(&output).view([-1, self.ntokens]).to_kind(Kind::Float);
            let loss = logits.cross_entropy_loss::<Tensor>(&target, None, tch::Reduction::Sum, -100, 0.0);
            total += loss.double_value(&[]);
            count += target.size()[0];
            at += len;
        }
        Ok((total / count as f64).exp())
    }

    fn report(&self, out: &mut serde_json::Map<String, serde_json::Value>) {
        out.insert("vocab".into(), self.ntokens.into());
        out.insert("precision".into(), if self.args.half { "float16" } else { "float32" }.into());
    }
}
