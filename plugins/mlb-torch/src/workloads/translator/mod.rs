//! translator: a GNMT-like encoder / attention decoder ([`gnmt`]) trained
//! with teacher forcing: label smoothing 0.1, Adam 5e-4, gradient norm
//! clipped to 5. Hidden 1024, 4 layers, shared vocabulary of 32000, sentences
//! of at most 50 tokens, batches of 64 pairs. Item: one sentence pair.
//!
//! Data: WMT16 en-de after BPE ([`data`]) when `data` names the folder;
//! otherwise synthetic pairs of the same shapes (stated in the report).
//!
//! Evaluation: the token accuracy under teacher forcing (the share of target
//! tokens, padding excluded, whose most likely prediction given the source
//! and the reference prefix is right; dropout off) on the first
//! `eval_items` (default 300) held-out pairs: the folder's newstest2014
//! files, else synthetic pairs of another seed. Higher is better.

pub mod data;
pub mod gnmt;

use crate::data::DataSource;
use crate::{grad, weights, Runtime, TorchWorkload};
use data::Pairs;
use gnmt::{Gnmt, GnmtConfig};
use mlb_plugin::{Quality, Step};
use rand::seq::index::sample;
use rand::SeedableRng;
use serde_json::{Map, Value};
use std::path::PathBuf;
use tch::nn::{self, OptimizerConfig};

mlb_plugin::workload_args! {
    /// The arguments of translator, with the original suite's defaults.
    pub struct Args {
        repeat = 15, number = 10;
        /// Sentence pairs per step.
        pub batch_size: u64 = 64,
        /// Learning rate of Adam.
        pub lr: f64 = 0.0005,
        /// Hidden units of every LSTM layer (1 or more).
        pub hidden: u64 = 1024,
        /// LSTM layers of the encoder and of the decoder (2 or more).
        pub layers: u64 = 4,
        /// Size of the shared vocabulary (16 or more; the data's when `data`
        /// is given).
        pub vocab: u64 = 32000,
        /// Longest sentence kept, in tokens (6 or more).
        pub max_length: u64 = 50,
        /// Label smoothing of the cross entropy, 0 to below 1.
        pub smoothing: f64 = 0.1,
        /// Gradient norm clipped to this (L2, over all parameters).
        pub clip: f64 = 5.0,
        /// Dropout probability, 0 to below 1.
        pub dropout: f64 = 0.2,
        /// Bound of the uniform initialisation of the weights: the
        /// reference's 0.1 is for hidden 1024; small models need a wider
        /// start (0.4 at hidden 64) or sit on the most common token.
        pub init: f64 = 0.1,
        /// Sentence pairs of the synthetic data (10000 when absent).
        pub synthetic_pairs: Option<u64>,
        /// The WMT16 en-de folder after BPE; synthetic pairs of the same
        /// shapes when absent.
        pub data: Option<String>,
        /// A file of initial weights (`.safetensors`, else a libtorch archive); random initialisation when absent.
        pub weights: Option<String>,
        /// Held-out pairs of an evaluation (300 when absent).
        pub eval_items: Option<u64>,
    }
}

/// Held-out pairs an evaluation reads when `eval_items` is absent.
pub const EVAL_ITEMS: u64 = 300;
/// The default target of the held-out token accuracy.
pub const QUALITY_TARGET: f64 = 0.6;

/// Settings of translator: its arguments checked and converted.
#[derive(Debug, Clone)]
pub struct Settings {
    batch: usize,
    lr: f64,
    smoothing: f64,
    clip: f64,
    max_length: usize,
    model: GnmtConfig,
    synthetic_pairs: usize,
    data: DataSource,
    weights: Option<PathBuf>,
    eval_items: usize,
}

/// The translator workload.
pub struct Translator {
    model: Gnmt,
    opt: nn::Optimizer,
    trainable: Vec<tch::Tensor>,
    pairs: Pairs,
    /// The held-out pairs, or why there are none.
    held_out: Result<Pairs, String>,
    rng: rand::rngs::StdRng,
    batch: usize,
    smoothing: f64,
    clip: f64,
    config: GnmtConfig,
    data: DataSource,
    weights: Option<PathBuf>,
    _vs: nn::VarStore,
}

impl TorchWorkload for Translator {
    const NAME: &'static str = "translator";
    const DESCRIPTION: &'static str =
        "GNMT-like LSTM encoder/attention decoder (hidden 1024, vocab 32000), label smoothing 0.1, Adam 5e-4, clip 5";
    type Args = Args;
    type Settings = Settings;
    const QUALITY: Option<Quality> =
        Some(Quality { metric: "token_accuracy", unit: "fraction", higher_is_better: true, target: QUALITY_TARGET });

    fn parse(args: Args) -> mlb_plugin::Result<Settings> {
        let at_least = |key: &str, v: u64, min: u64| -> mlb_plugin::Result<u64> {
            if v < min {
                return Err(format!("translator: argument `{key}` must be at least {min}, got {v}").into());
            }
            Ok(v)
        };
        if !(args.init > 0.0 && args.init.is_finite()) {
            return Err(format!("translator: argument `init` must be a positive number, got {}", args.init).into());
        }
        let model = GnmtConfig {
            vocab: at_least("vocab", args.vocab, 16)? as i64,
            hidden: at_least("hidden", args.hidden, 1)? as i64,
            layers: at_least("layers", args.layers, 2)? as usize,
            dropout: args.dropout,
            init: args.init,
        };
        Ok(Settings {
            batch: at_least("batch_size", args.batch_size, 1)? as usize,
            lr: args.lr,
            smoothing: args.smoothing,
            clip: args.clip,
            max_length: at_least("max_length", args.max_length, 6)? as usize,
            model,
            synthetic_pairs: at_least("synthetic_pairs", args.synthetic_pairs.unwrap_or(10_000), 1)? as usize,
            data: DataSource::from_arg(args.data),
            weights: args.weights.map(PathBuf::from),
            eval_items: at_least("eval_items", args.eval_items.unwrap_or(EVAL_ITEMS), 1)? as usize,
        })
    }

    fn build(args: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
        let (pairs, held_out) = match args.data.path() {
            Some(dir) => (data::load(dir, args.max_length)?, data::load_held_out(dir, args.max_length)),
            None => {
                let synthetic = |count, seed| data::synthetic(count, args.model.vocab, args.max_length, seed);
                let held_out = synthetic(args.eval_items, crate::synth::held_out_seed(rt.seed()));
                (synthetic(args.synthetic_pairs, rt.seed()), Ok(held_out))
            }
        };
        let held_out = held_out.map_err(|e| e.to_string()).map(|mut p| {
            p.pairs.truncate(args.eval_items);
            p
        });
        let config = GnmtConfig { vocab: pairs.vocab, ..args.model };
        let mut vs = nn::VarStore::new(rt.device());
        let model = Gnmt::new(&vs.root(), &config);
        if let Some(path) = &args.weights {
            weights::load(&mut vs, path)?;
        }
        let opt = nn::Adam::default().build(&vs, args.lr)?;
        Ok(Translator {
            model,
            opt,
            trainable: vs.trainable_variables(),
            pairs,
            held_out,
            rng: rand::rngs::StdRng::seed_from_u64(rt.seed()),
            batch: args.batch,
            smoothing: args.smoothing,
            clip: args.clip,
            config,
            data: args.data,
            weights: args.weights,
            _vs: vs,
        })
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let n = self.pairs.pairs.len();
        let indices: Vec<usize> = if n >= self.batch {
            sample(&mut self.rng, n, self.batch).into_vec()
        } else {
            (0..self.batch).map(|i| i % n).collect()
        };
        let b = data::batch(&self.pairs, &indices, self.trainable[0].device());
        let logits = self.model.forward(&b.src, &b.tgt_in, true);
        let loss = gnmt::label_smoothing_loss(&logits, &b.tgt_out, self.smoothing);
        self.opt.zero_grad();
        (&loss / self.batch as f64).backward();
        grad::clip_grad_norm(&grad::grads(&self.trainable), self.clip);
        self.opt.step();
        // Reported per target token, as the reference logs it.
        Ok(Step::with_loss(self.batch as u64, loss.double_value(&[]) / b.tokens.max(1) as f64))
    }

    fn data(&self) -> &DataSource {
        &self.data
    }

    fn eval(&mut self) -> mlb_plugin::Result<f64> {
        let held_out = self.held_out.as_ref().map_err(|e| format!("translator has no held-out pairs: {e}"))?;
        let (mut right, mut tokens) = (0, 0);
        let indices: Vec<usize> = (0..held_out.pairs.len()).collect();
        for chunk in indices.chunks(self.batch.max(1)) {
            let b = data::batch(held_out, chunk, self.trainable[0].device());
            let predicted = self.model.forward(&b.src, &b.tgt_in, false).argmax(-1, false);
            let hits = predicted.eq_tensor(&b.tgt_out).logical_and(&b.tgt_out.ne(data::PAD));
            right += hits.sum(tch::Kind::Int64).int64_value(&[]);
            tokens += b.tokens;
        }
        Ok(right as f64 / tokens.max(1) as f64)
    }

    fn report(&self, out: &mut Map<String, Value>) {
        out.insert("vocab".into(), self.config.vocab.into());
        out.insert("hidden".into(), self.config.hidden.into());
        out.insert("pairs".into(), self.pairs.pairs.len().into());
        out.insert("weights".into(), weights::report_value(self.weights.as_deref()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn translator(args: &str) -> Translator {
        Translator::build(crate::plugin::settings::<Translator>(args).unwrap(), &Runtime::cpu(0).unwrap()).unwrap()
    }

    const TINY: &str = r#""batch_size": 8, "hidden": 32, "vocab": 48, "max_length": 10, "lr": 0.005, "dropout": 0.0"#;

    #[test]
    fn loss_decreases_on_synthetic_pairs() {
        let mut w = translator(&format!(r#"{{{TINY}, "synthetic_pairs": 64}}"#));
        let losses: Vec<f64> = (0..40).map(|_| w.step().unwrap().loss.unwrap()).collect();
        let (first, last) = (losses[..3].iter().sum::<f64>(), losses[37..].iter().sum::<f64>());
        assert!(last < 0.9 * first, "{losses:?}");
    }

    #[test]
    fn trains_on_a_bpe_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(data::VOCAB_FILE), "a\nb\nc\nd\n").unwrap();
        std::fs::write(dir.path().join(data::SRC_FILE), "a b\nb c d\nc\n").unwrap();
        std::fs::write(dir.path().join(data::TGT_FILE), "b c\nc d a\nd\n").unwrap();
        let mut w = translator(&format!(r#"{{{TINY}, "data": "{}"}}"#, dir.path().display()));
        assert_eq!(w.config.vocab, 8);
        let first = w.step().unwrap().loss.unwrap();
        let last = (0..30).map(|_| w.step().unwrap().loss.unwrap()).last().unwrap();
        assert!(last < first, "{first} -> {last}");
        let mut out = Map::new();
        w.report(&mut out);
        assert_eq!(out["pairs"], 3);
    }

    #[test]
    fn init_bounds_the_starting_weights() {
        let largest = |init: &str| {
            let w = translator(&format!(r#"{{{TINY}, "init": {init}}}"#));
            let vars = w._vs.variables();
            // The attention's normalisation starts at its own values.
            let weights = vars.iter().filter(|(name, _)| !name.contains("normalize"));
            let all: Vec<tch::Tensor> = weights.map(|(_, t)| t.abs().max()).collect();
            tch::Tensor::stack(&all, 0).max().double_value(&[])
        };
        let (reference, wide) = (largest("0.1"), largest("0.4"));
        assert!(reference <= 0.1 + 1e-6 && (0.3..=0.4 + 1e-6).contains(&wide), "{reference} {wide}");
        let e = crate::plugin::settings::<Translator>(&format!(r#"{{{TINY}, "init": 0}}"#)).unwrap_err();
        assert!(e.to_string().contains("`init` must be a positive number"), "{e}");
    }

    #[test]
    fn gradients_are_clipped_to_the_limit() {
        let mut w = translator(&format!(r#"{{{TINY}, "clip": 1e-3, "lr": 1.0}}"#));
        let before: Vec<tch::Tensor> = w.trainable.iter().map(|t| t.copy()).collect();
        w.step().unwrap();
        // Adam normalises its first step, so check the clipped gradients.
        let norms: Vec<tch::Tensor> = grad::grads(&w.trainable).iter().map(|g| g.norm()).collect();
        let norm = tch::Tensor::stack(&norms, 0).norm().double_value(&[]);
        assert!(norm <= 1e-3 * 1.01, "gradient norm after clipping: {norm}");
        assert!(before.iter().zip(&w.trainable).any(|(a, b)| a.ne_tensor(b).any().int64_value(&[]) != 0));
    }
}
