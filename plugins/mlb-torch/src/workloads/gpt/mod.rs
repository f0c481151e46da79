//! gpt: a decoder-only language model in the Llama style (RMSNorm, rotary
//! positions, SwiGLU MLP, causal attention through libtorch's fused
//! `scaled_dot_product_attention`, tied or untied embeddings), trained with
//! AdamW, linear warm-up and cosine decay, gradient clipping and gradient
//! accumulation, in fp32, bf16 or fp16 ([`crate::precision`]). Item: a
//! sequence of `seq_len` tokens.
//!
//! Sizes by name (`tiny`, `124m`, `350m`, `1.3b`: [`shape::SIZES`]) or by
//! `layers`, `heads` and `width`. Data: the token ids `mlb prepare` stores
//! beside a prepared wikitext ([`data`]), else Zipf-distributed synthetic
//! tokens over `vocab`. The report states the FLOPs of one sequence
//! ([`shape::Shape::flops_per_sequence`]). Evaluation: the held-out
//! perplexity ([`eval`]).
//!
//! Under `"group": "ddp"` (the launcher's rendezvous variables set) the
//! ranks form a c10d group ([`crate::dist`]): rank 0's initial weights are
//! broadcast, each rank takes its share of the sequences of one batch
//! drawn from rank 0's seed ([`data`]), and the gradients are
//! averaged after the backward pass of the step's last micro-batch
//! (overlapped with it when `accumulate` is 1 and `overlap` on).
//!
//! `checkpoint: true` checkpoints every block ([`crate::checkpoint`]): its
//! activations are freed after the forward pass and recomputed in the
//! backward pass, for about a third more compute and the memory of one
//! block's activations instead of all of them.
//!
//! It checkpoints ([`crate::resume`]): the weights, AdamW's moments and
//! step counts, the step (the learning rate schedule's), the position of
//! the windows' generator and, in fp16, the loss scale; a restore must
//! match the shape, precision, batch, accumulation, seed, data and group
//! size.

pub mod attention;
pub mod block;
pub mod data;
pub mod eval;
pub mod model;
pub mod rope;
pub mod schedule;
pub mod shape;

use crate::data::DataSource;
use crate::dist::{self, in_group, DataParallel};
use crate::fingerprint::sorted_variables;
use crate::grad::{clip_grad_norm, grads};
use crate::optim::AdamW;
use crate::precision::{self, MixedPrecision, Precision, TorchPrecision};
use crate::resume::{Counters, State};
use crate::{Runtime, TorchWorkload};
use data::Tokens;
use eval::HeldOut;
use mlb_plugin::{CheckpointHeader, Quality, Step};
use model::Model;
use schedule::Schedule;
use shape::{Shape, SIZES, SYNTHETIC_VOCAB};
use tch::nn;
use tch::{Device, Tensor};

mlb_plugin::workload_args! {
    /// The arguments of gpt.
    pub struct Args {
        repeat = 10, number = 5;
        /// Model size by name: `tiny`, `124m`, `350m` or `1.3b` (each sets
        /// `layers`, `heads`, `width` and `seq_len`).
        pub size: String = "124m",
        /// Sequences of one micro-batch (1 or more).
        pub batch_size: u64 = 8,
        /// Training precision: `fp32`, `bf16` or `fp16` (autocast; fp16 with
        /// loss scaling).
        pub precision: String = "bf16",
        /// Peak learning rate of AdamW, reached after the warm-up.
        pub lr: f64 = 6e-4,
        /// Steps of linear warm-up to the peak learning rate.
        pub warmup: u64 = 100,
        /// Steps of cosine decay after the warm-up, down to a tenth of the
        /// peak, held after.
        pub decay_steps: u64 = 5000,
        /// AdamW weight decay of the matrices (norms and biases get none).
        pub weight_decay: f64 = 0.1,
        /// Gradient norm clipped to this (L2, over all parameters).
        pub clip: f64 = 1.0,
        /// Micro-batches whose gradients one step sums (1 or more): a step
        /// trains `batch_size * accumulate` sequences.
        pub accumulate: u64 = 1,
        /// The output layer shares the token embedding's weights.
        pub tied: bool = true,
        /// Checkpoints every block: activations recomputed in the backward
        /// pass, about a third more compute for much less memory.
        pub checkpoint: bool,
        /// Transformer blocks (1 or more; the size's when absent).
        pub layers: Option<u64>,
        /// Attention heads per block (1 or more, dividing `width`; the size's
        /// when absent).
        pub heads: Option<u64>,
        /// Model width, the embedding dimension (the size's when absent).
        pub width: Option<u64>,
        /// Tokens per sequence (the size's when absent).
        pub seq_len: Option<u64>,
        /// Vocabulary of the synthetic tokens (2 or more; 50304 when absent;
        /// the data's when `data` is given).
        pub vocab: Option<u64>,
        /// Data parallel: bound of the rendezvous and of every collective, in
        /// seconds (300 when absent).
        pub timeout: Option<f64>,
        /// Data parallel: size of the gradient all-reduce buckets, in MiB
        /// (25 when absent).
        pub bucket_mb: Option<f64>,
        /// Data parallel: the network interface Gloo binds (else
        /// `GLOO_SOCKET_IFNAME`, else the address of this host's name).
        pub interface: Option<String>,
        /// Data parallel: `auto` (NCCL on a GPU, else Gloo), `gloo` or `nccl`
        /// (`auto` when absent).
        pub backend: Option<String>,
        /// Data parallel: the all-reduce overlaps the backward pass (on when
        /// absent; only when `accumulate` is 1).
        pub overlap: Option<bool>,
        /// A wikitext folder prepared by `mlb prepare` (its `train.ids`);
        /// synthetic Zipf-distributed tokens when absent.
        pub data: Option<String>,
        /// Held-out sequences of an evaluation (64 when absent).
        pub eval_items: Option<u64>,
    }
}

/// Settings of gpt: its arguments checked and converted.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The shape; `vocab` is replaced by the data's when data is given.
    shape: Shape,
    size: String,
    batch: i64,
    precision: Precision,
    schedule: Schedule,
    weight_decay: f64,
    clip: f64,
    accumulate: u64,
    checkpoint: bool,
    data: DataSource,
    ddp: dist::Settings,
    eval_items: u64,
}

impl TryFrom<Args> for Settings {
    type Error = mlb_plugin::Error;

    fn try_from(args: Args) -> mlb_plugin::Result<Settings> {
        let names = || SIZES.iter().map(|s| s.name).collect::<Vec<_>>().join(", ");
        let Some(size) = SIZES.iter().find(|s| s.name == args.size) else {
            return Err(format!("argument `size` must be one of {}, got {:?}", names(), args.size).into());
        };
        let pick = |v: Option<u64>, default: i64| v.map_or(default, |v| v as i64);
        let shape = Shape {
            layers: pick(args.layers, size.layers),
            heads: pick(args.heads, size.heads),
            width: pick(args.width, size.width),
            seq_len: pick(args.seq_len, size.seq_len),
            vocab: pick(args.vocab, SYNTHETIC_VOCAB),
            tied: args.tied,
        };
        if shape.layers < 1 || shape.heads < 1 || shape.seq_len < 1 || shape.vocab < 2 {
            return Err("gpt needs layers, heads and seq_len >= 1 and vocab >= 2".into());
        }
        if shape.width % shape.heads != 0 || shape.head_dim() % 2 != 0 {
            let (w, h) = (shape.width, shape.heads);
            return Err(
                format!("`width` ({w}) must be a multiple of `heads` ({h}) with an even quotient (RoPE)").into()
            );
        }
        if args.batch_size == 0 || args.accumulate == 0 {
            return Err("gpt needs batch_size >= 1 and accumulate >= 1".into());
        }
        let backend = args.backend.as_deref();
        Ok(Settings {
            shape,
            size: if args.layers.or(args.heads).or(args.width).is_some() { "custom".into() } else { args.size },
            batch: args.batch_size as i64,
            precision: precision::parse_training(&args.precision)?,
            schedule: Schedule { peak: args.lr, warmup: args.warmup, decay: args.decay_steps },
            weight_decay: args.weight_decay,
            clip: args.clip,
            accumulate: args.accumulate,
            checkpoint: args.checkpoint,
            data: DataSource::from_arg(args.data),
            ddp: dist::Settings::new(args.timeout, args.bucket_mb, args.interface, backend, args.overlap)?,
            eval_items: args.eval_items.unwrap_or(eval::EVAL_ITEMS).max(1),
        })
    }
}

/// The gpt workload.
pub struct Gpt {
    model: Model,
    opt: AdamW,
    mixed: MixedPrecision,
    tokens: Tokens,
    params: Vec<Tensor>,
    ddp: Option<DataParallel>,
    step: u64,
    /// The seed the data and the initial weights were drawn from (rank 0's
    /// in a group).
    seed: u64,
    device: Device,
    args: Settings,
    /// The held-out windows, or why there are none.
    held_out: Result<HeldOut, String>,
    vs: nn::VarStore,
}

impl TorchWorkload for Gpt {
    const NAME: &'static str = "gpt";
    const DESCRIPTION: &'static str = "decoder-only transformer LM (Llama style: RMSNorm, RoPE, SwiGLU, fused causal \
                                       attention), AdamW with warm-up and cosine decay, fp32/bf16/fp16";
    type Args = Args;
    type Settings = Settings;
    const QUALITY: Option<Quality> = Some(eval::QUALITY);
    const DETERMINISTIC: bool = true;
    const CHECKPOINT: bool = true;

    fn parse(args: Args) -> mlb_plugin::Result<Settings> {
        args.try_into()
    }

    fn build(mut args: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
        let device = rt.device();
        let mut ddp = if in_group()? { Some(args.ddp.join(device)?) } else { None };
        let (share, seed) = match &ddp {
            Some(dp) => ((dp.group().rank(), dp.group().world()), dp.root_seed(rt.seed())?),
            None => ((0, 1), rt.seed()),
        };
        let tokens = match args.data.path() {
            Some(dir) => Tokens::load(dir, seed, share)?,
            None => Tokens::synthetic(args.shape.vocab, seed, share),
        };
        // The same initial weights on every rank before rank 0's broadcast.
        tch::manual_seed(seed as i64);
        args.shape.vocab = tokens.vocab();
        if tokens.len() < args.shape.seq_len + 1 {
            return Err(format!("the data has {} tokens, fewer than seq_len + 1", tokens.len()).into());
        }
        let vs = nn::VarStore::new(device);
        let model = Model::new(&vs.root(), &args.shape, args.checkpoint);
        if let Some(dp) = &ddp {
            dp.broadcast(&sorted_variables(&vs).into_iter().map(|(_, t)| t).collect::<Vec<_>>())?;
        }
        let opt = AdamW::from_var_store(&vs, model::decays, args.weight_decay, (0.9, 0.95), 1e-8);
        let params = vs.trainable_variables();
        if let Some(dp) = &mut ddp {
            if args.ddp.overlap && args.accumulate == 1 {
                dp.overlap(&params)?;
            }
        }
        let mixed = MixedPrecision::new(args.precision, device);
        let (vocab, seq_len, count) = (args.shape.vocab, args.shape.seq_len, args.eval_items);
        let held_out = match args.data.path() {
            Some(dir) => HeldOut::load(dir, vocab, seq_len, count, device),
            None => Ok(HeldOut::synthetic(vocab, seed, seq_len, count, device)),
        };
        Ok(Gpt { model, opt, mixed, tokens, params, ddp, step: 0, seed, device, args, held_out, vs })
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let (batch, seq_len, accumulate) = (self.args.batch, self.args.shape.seq_len, self.args.accumulate);
        self.opt.zero_grad()?;
        let mut total = Tensor::zeros([], (tch::Kind::Float, self.device));
        for _ in 0..accumulate {
            let (input, target) = self.tokens.batch(batch, seq_len, self.device);
            let loss = self.mixed.forward(|| self.model.loss(&input, &target)) / accumulate as f64;
            self.mixed.backward(&loss);
            total += loss.detach();
        }
        if let Some(dp) = &self.ddp {
            dp.average_grads(&self.params)?;
        }
        let grads = grads(&self.params);
        if self.mixed.unscale(&grads) {
            clip_grad_norm(&grads, self.args.clip);
            self.opt.step(self.args.schedule.lr(self.step))?;
        }
        self.step += 1;
        Ok(Step::with_loss((batch as u64) * accumulate, total.double_value(&[])))
    }

    fn data(&self) -> &DataSource {
        &self.args.data
    }

    fn eval(&mut self) -> mlb_plugin::Result<f64> {
        let held_out = self.held_out.as_ref().map_err(|e| format!("gpt has no held-out tokens: {e}"))?;
        Ok(held_out.perplexity(&self.model, &self.mixed, self.args.batch))
    }

    fn flops_kind(&self) -> Option<tch::Kind> {
        Some(self.mixed.precision().kind())
    }

    fn variables(&self) -> Vec<(String, Tensor)> {
        sorted_variables(&self.vs)
    }

    fn checkpoint_header(&self) -> CheckpointHeader {
        let (shape, args) = (&self.args.shape, &self.args);
        CheckpointHeader::new(Self::NAME)
            .with("layers", shape.layers)
            .with("heads", shape.heads)
            .with("width", shape.width)
            .with("seq_len", shape.seq_len)
            .with("vocab", shape.vocab)
            .with("tied", shape.tied)
            .with("precision", args.precision.name())
            .with("batch_size", args.batch)
            .with("accumulate", args.accumulate)
            .with("seed", self.seed)
            .with("data", args.data.report_value())
            .with("world_size", self.ddp.as_ref().map_or(1, |dp| dp.group().world()))
    }

    fn state(&self) -> State {
        let mut counters = Counters::default();
        counters.set("step", self.step);
        counters.set_wide("tokens_position", self.tokens.position());
        self.mixed.save(&mut counters);
        State { tensors: self.opt.state(), counters }
    }

    fn resume(&mut self, counters: &Counters) -> mlb_plugin::Result<()> {
        self.step = counters.u64("step")?;
        self.tokens.seek(counters.wide("tokens_position")?);
        Ok(self.mixed.resume(counters)?)
    }

    fn report(&self, out: &mut serde_json::Map<String, serde_json::Value>) {
        let shape = &self.args.shape;
        self.mixed.report(out);
        out.insert("size".into(), self.args.size.clone().into());
        out.insert(
            "shape".into(),
            serde_json::json!({
                "layers": shape.layers, "heads": shape.heads, "width": shape.width, "ffn": shape.ffn(),
                "seq_len": shape.seq_len, "vocab": shape.vocab, "tied": shape.tied,
            }),
        );
        out.insert("params".into(), shape.params().into());
        out.insert("tokens_per_item".into(), shape.seq_len.into());
        out.insert("flops_per_item".into(), shape.flops_per_sequence().into());
        out.insert("flops_formula".into(), shape::FLOPS_FORMULA.into());
        out.insert("accumulate".into(), self.args.accumulate.into());
        out.insert("activation_checkpointing".into(), self.args.checkpoint.into());
        if let Some(dp) = &self.ddp {
            out.insert("world_size".into(), dp.group().world().into());
            out.insert("ddp".into(), dist::settings::report(dp, &self.args.ddp));
        }
    }
}
