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

use crate::amp::{LossScale, MasterWeights};
use crate::data::corpus::Corpus;
use crate::data::DataSource;
use crate::grad::{clip_grad_norm, grads};
use crate::{Runtime, TorchWorkload};
use mlb_plugin::{Step, WorkloadArgs};
use tch::nn::{self, Module, OptimizerConfig, RNN};
use tch::{Kind, Tensor};

/// wikitext-2's vocabulary size (train, valid and test words).
pub const WIKITEXT2_VOCAB: i64 = 33_278;
/// wikitext-2's training tokens.
pub const WIKITEXT2_TRAIN_TOKENS: i64 = 2_088_628;

/// Declares the arguments of a variant of wlm (all take the same ones; the
/// variant sets the defaults it lists) and their conversion to [`Settings`].
macro_rules! wlm_args {
    ($(#[$doc:meta])* $name:ident, half = $half:literal, batch_size = $batch:literal $(, loss_scale = $scale:literal)?) => {
        mlb_plugin::workload_args! {
            $(#[$doc])*
            pub struct $name {
                repeat = 15, number = 5;
                pub batch_size: u64 = $batch,
                pub emsize: u64 = 656,
                pub nhid: u64 = 656,
                pub dropout: f64 = 0.5,
                pub lr: f64 = 20,
                pub clip: f64 = 0.25,
                pub loss_scale: Option<String> $(= $scale)?,
                pub bptt: Option<u64>,
                pub nlayers: Option<u64>,
                pub vocab: Option<u64>,
                pub corpus_tokens: Option<u64>,
                pub fp16: bool,
                pub model: Option<String>,
                pub data: Option<String>,
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

    fn parse(args: Self::Args) -> mlb_plugin::Result<Settings> {
        args.try_into()
    }

    fn build(args: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
        let device = rt.device();
        let (tokens, vocab) = match args.data.path() {
            Some(dir) => {
                let corpus = Corpus::load(dir)?;
                (Tensor::from_slice(&corpus.train).to_device(device), corpus.dictionary.len() as i64)
            }
            None => (crate::synth::zipf_tokens(args.tokens, args.vocab, device), args.vocab),
        };
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
        Ok(Wlm { encoder, rnn, decoder, update, vars, corpus, position: 0, hidden, ntokens, args, _vs: vs })
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

    fn report(&self, out: &mut serde_json::Map<String, serde_json::Value>) {
        out.insert("vocab".into(), self.ntokens.into());
        out.insert("precision".into(), if self.args.half { "float16" } else { "float32" }.into());
    }
}
