//! recom: NeuMF trained on implicit feedback (neural collaborative
//! filtering), as the MLPerf NCF reference: MF dimension 64, MLP
//! 256-256-128-64, final `Linear(128, 1)`, 4 negatives per positive,
//! Adam 5e-4, binary cross entropy on logits. Item: one (user, item) sample.
//!
//! Data: MovieLens ml-20m `ratings.csv` ([`ratings`]) when `data` names it or
//! its folder; otherwise synthetic positives with ml-20m's numbers of users
//! and items and Zipf-distributed item popularity (stated in the report).
//!
//! Evaluation ([`hit_rate`]): the hit rate at 10 of the first `eval_items`
//! (default 1000) users' held-out positives (each user's latest rating;
//! synthetic: a positive of the same popularity drawn from another seed),
//! each ranked among 99 negatives. Higher is better.

pub mod hit_rate;
pub mod neumf;
pub mod ratings;
pub mod sampler;

use crate::data::DataSource;
use crate::metrics::Metrics;
use crate::{synth, weights, Runtime, TorchWorkload};
use hit_rate::HeldOut;
use mlb_plugin::{Quality, Step};
use neumf::{NeuMf, NeuMfConfig};
use rand::SeedableRng;
use sampler::Sampler;
use serde_json::{Map, Value};
use std::path::PathBuf;
use tch::nn::{self, OptimizerConfig};
use tch::{Kind, Reduction, Tensor};

/// Users in ml-20m.
pub const ML20M_USERS: i64 = 138_493;
/// Items (movies) in ml-20m.
pub const ML20M_ITEMS: i64 = 26_744;

mlb_plugin::workload_args! {
    /// The arguments of recom, with the original suite's defaults.
    pub struct Args {
        repeat = 25, number = 100;
        /// Samples per step: positives and their negatives, each a (user,
        /// item) pair.
        pub batch_size: u64 = 2048,
        /// Learning rate of Adam.
        pub lr: f64 = 0.0005,
        /// Dimension of the matrix factorisation embeddings.
        pub factors: u64 = 64,
        /// Widths of the MLP layers, separated by spaces; the first is
        /// twice the MLP embedding dimension.
        pub layers: String = "256 256 128 64",
        /// Negative samples drawn per positive.
        pub negatives: u64 = 4,
        /// MovieLens ml-20m `ratings.csv`, or its folder; synthetic positives
        /// with Zipf-distributed item popularity when absent.
        pub data: Option<String>,
        /// Users of the synthetic data (138493, ml-20m's, when absent).
        pub users: Option<u64>,
        /// Items of the synthetic data (26744, ml-20m's, when absent).
        pub items: Option<u64>,
        /// Positive pairs of the synthetic data (1000000 when absent).
        pub synthetic_pairs: Option<u64>,
        /// A file of initial weights (`.safetensors`, else a libtorch archive); random initialisation when absent.
        pub weights: Option<String>,
        /// Held-out users of an evaluation (1000 when absent).
        pub eval_items: Option<u64>,
    }
}

/// Held-out users an evaluation ranks when `eval_items` is absent.
pub const EVAL_ITEMS: u64 = 1000;
/// The default target of the hit rate at 10.
pub const QUALITY_TARGET: f64 = 0.45;

/// Settings of recom: its arguments checked and converted.
#[derive(Debug, Clone)]
pub struct Settings {
    batch: i64,
    lr: f64,
    factors: i64,
    layers: Vec<i64>,
    negatives: i64,
    data: DataSource,
    users: i64,
    items: i64,
    synthetic_pairs: i64,
    weights: Option<PathBuf>,
    eval_items: usize,
}

/// The recom workload.
pub struct Recom {
    model: NeuMf,
    opt: nn::Optimizer,
    sampler: Sampler,
    /// The held-out candidates (`None`: too few items or no held-out pair).
    held_out: Option<HeldOut>,
    sizes: NeuMfConfig,
    batch: i64,
    metrics: Metrics,
    data: DataSource,
    weights: Option<PathBuf>,
    _vs: nn::VarStore,
}

impl TorchWorkload for Recom {
    const NAME: &'static str = "recom";
    const DESCRIPTION: &'static str =
        "NeuMF (MF 64, MLP 256-256-128-64) on MovieLens ratings.csv or synthetic feedback, Adam 5e-4, BCE";
    type Args = Args;
    type Settings = Settings;
    const QUALITY: Option<Quality> =
        Some(Quality { metric: "hit_rate@10", unit: "fraction", higher_is_better: true, target: QUALITY_TARGET });

    fn parse(args: Args) -> mlb_plugin::Result<Settings> {
        let positive = |key: &str, value: u64| -> mlb_plugin::Result<i64> {
            match value {
                0 => Err(format!("recom: argument `{key}` must be positive").into()),
                v => Ok(v as i64),
            }
        };
        Ok(Settings {
            batch: positive("batch_size", args.batch_size)?,
            lr: args.lr,
            factors: positive("factors", args.factors)?,
            layers: neumf::parse_layers(&args.layers).map_err(|e| format!("recom: {e}"))?,
            negatives: args.negatives as i64,
            data: DataSource::from_arg(args.data),
            users: positive("users", args.users.unwrap_or(ML20M_USERS as u64))?,
            items: positive("items", args.items.unwrap_or(ML20M_ITEMS as u64))?,
            synthetic_pairs: positive("synthetic_pairs", args.synthetic_pairs.unwrap_or(1_000_000))?,
            weights: args.weights.map(PathBuf::from),
            eval_items: positive("eval_items", args.eval_items.unwrap_or(EVAL_ITEMS))? as usize,
        })
    }

    fn build(args: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
        let device = rt.device();
        let held_out_seed = synth::held_out_seed(rt.seed());
        let (users, items, sampler, held_out) = match args.data.path() {
            Some(path) => {
                let r = ratings::load(&ratings::file_in(path))?;
                let sampler = Sampler::new(&r.train, r.items as i64, args.negatives, args.batch, device);
                let held_out = HeldOut::new(&r.test, &r.train, r.items as u32, args.eval_items, held_out_seed);
                (r.users as i64, r.items as i64, sampler, held_out)
            }
            None => {
                let pair_users = Tensor::randint(args.users, [args.synthetic_pairs], (Kind::Int64, device));
                let pair_items = synth::zipf_tokens(args.synthetic_pairs, args.items, device);
                let mut rng = rand::rngs::StdRng::seed_from_u64(held_out_seed);
                let count = args.eval_items.min(args.users as usize);
                let positives = synth::zipf_tokens_from(count, args.items, &mut rng);
                let test: Vec<(u32, u32)> = positives.iter().enumerate().map(|(u, &i)| (u as u32, i as u32)).collect();
                let held_out = HeldOut::new(&test, &[], args.items as u32, count, held_out_seed);
                let sampler = Sampler::from_tensors(pair_users, pair_items, args.items, args.negatives, args.batch);
                (args.users, args.items, sampler, held_out)
            }
        };
        let held_out = held_out.map(|h| h.to(device));
        let sizes = NeuMfConfig { users, items, factors: args.factors, layers: args.layers };
        let mut vs = nn::VarStore::new(device);
        let model = NeuMf::new(&vs.root(), &sizes);
        if let Some(path) = &args.weights {
            weights::load(&mut vs, path)?;
        }
        let opt = nn::Adam::default().build(&vs, args.lr)?;
        Ok(Recom {
            model,
            opt,
            sampler,
            held_out,
            sizes,
            batch: args.batch,
            metrics: Metrics::default(),
            data: args.data,
            weights: args.weights,
            _vs: vs,
        })
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let b = self.sampler.next_batch();
        let logits = self.model.forward(&b.users, &b.items);
        let loss = logits.binary_cross_entropy_with_logits::<Tensor>(&b.labels, None, None, Reduction::Mean);
        self.opt.backward_step(&loss);
        let loss = loss.double_value(&[]);
        self.metrics.push("loss", loss);
        Ok(Step::with_loss(b.users.size()[0] as u64, loss))
    }

    fn data(&self) -> &DataSource {
        &self.data
    }

    fn eval(&mut self) -> mlb_plugin::Result<f64> {
        let held_out = self.held_out.as_ref().ok_or_else(|| {
            format!("recom has no held-out users to rank (it needs more than {} items)", hit_rate::NEGATIVES)
        })?;
        Ok(held_out.hit_rate(&self.model))
    }

    fn report(&self, out: &mut Map<String, Value>) {
        out.insert("users".into(), self.sizes.users.into());
        out.insert("items".into(), self.sizes.items.into());
        out.insert("batch_size".into(), self.batch.into());
        out.insert("epochs".into(), self.sampler.epochs().into());
        out.insert("weights".into(), weights::report_value(self.weights.as_deref()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recom(args: &str, seed: u64) -> Recom {
        Recom::build(crate::plugin::settings::<Recom>(args).unwrap(), &Runtime::cpu(seed).unwrap()).unwrap()
    }

    fn mean(v: &[f64]) -> f64 {
        v.iter().sum::<f64>() / v.len() as f64
    }

    const TINY: &str = r#""batch_size": 256, "factors": 8, "layers": "32 16 8", "lr": 0.005"#;

    #[test]
    fn loss_decreases_on_synthetic_feedback() {
        let mut w = recom(&format!(r#"{{{TINY}, "users": 200, "items": 300, "synthetic_pairs": 5000}}"#), 0);
        let losses: Vec<f64> = (0..60).map(|_| w.step().unwrap().loss.unwrap()).collect();
        assert!(mean(&losses[50..]) < 0.9 * mean(&losses[..5]), "{:.4} -> {:.4}", losses[0], losses[59]);
        let mut out = Map::new();
        w.report(&mut out);
        assert_eq!(out["users"], 200);
        assert_eq!(out["weights"], "random init");
    }

    #[test]
    fn trains_on_a_ratings_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut csv = String::from("userId,movieId,rating,timestamp\n");
        for u in 0..40 {
            for k in 0..12 {
                // Each user likes a band of ten neighbouring movies.
                csv += &format!("{},{},4.0,{}\n", u + 1, 1000 + (u * 3 + k) % 60, k);
            }
        }
        std::fs::write(dir.path().join(ratings::FILE_NAME), csv).unwrap();
        let args = format!(r#"{{{TINY}, "data": "{}"}}"#, dir.path().display());
        let mut w = recom(&args, 1);
        assert_eq!(w.sizes.users, 40);
        assert_eq!(w.sizes.items, 60);
        assert_eq!(w.data().report_value(), dir.path().display().to_string());
        let losses: Vec<f64> = (0..60).map(|_| w.step().unwrap().loss.unwrap()).collect();
        assert!(mean(&losses[50..]) < mean(&losses[..5]), "{:.4} -> {:.4}", losses[0], losses[59]);
    }

    #[test]
    fn weights_saved_by_one_run_load_into_another() {
        let dir = tempfile::tempdir().unwrap();
        let sizes = format!(r#"{TINY}, "users": 20, "items": 30, "synthetic_pairs": 100"#);
        let mut a = recom(&format!("{{{sizes}}}"), 2);
        a.step().unwrap();
        let file = dir.path().join("neumf.safetensors");
        a._vs.save(&file).unwrap();
        let b = recom(&format!(r#"{{{sizes}, "weights": "{}"}}"#, file.display()), 3);
        let users = Tensor::from_slice(&[0i64, 5]);
        let items = Tensor::from_slice(&[1i64, 7]);
        let diff = (a.model.forward(&users, &items) - b.model.forward(&users, &items)).abs().max().double_value(&[]);
        assert!(diff < 1e-6, "{diff}");
        let bad = crate::plugin::settings::<Recom>(
            r#"{"weights": "/nonexistent/w.safetensors", "users": 2, "items": 2, "synthetic_pairs": 4}"#,
        )
        .unwrap();
        let e = Recom::build(bad, &Runtime::cpu(0).unwrap()).err().unwrap().to_string();
        assert!(e.contains("/nonexistent/w.safetensors"), "{e}");
    }
}
