//! gpt's correctness at tiny sizes on the CPU, one thread: the fused
//! attention against a naive one, RoPE against its closed form, the loss
//! on a learnable token sequence, bf16 against fp32, activation
//! checkpointing against none, and the FLOPs per sequence against the
//! formula.

use crate::common::train;
use mlb_torch::precision::{Precision, TorchPrecision};
use mlb_torch::workloads::gpt::attention::causal;
use mlb_torch::workloads::gpt::model::Model;
use mlb_torch::workloads::gpt::rope::{Rope, BASE};
use mlb_torch::workloads::gpt::shape::Shape;
use mlb_torch::workloads::Gpt;
use serde_json::{Map, Value};
use std::path::Path;
use tch::{Device, Kind, Tensor};

/// `softmax(Q K^T / sqrt(d))` with the positions after each query masked
/// out, times `V`: attention written out.
fn naive_attention(q: &Tensor, k: &Tensor, v: &Tensor) -> Tensor {
    let (t, d) = (q.size()[2], q.size()[3]);
    let scores = q.matmul(&k.transpose(-2, -1)) / (d as f64).sqrt();
    let future = Tensor::ones([t, t], (Kind::Bool, Device::Cpu)).triu(1);
    scores.masked_fill(&future, f64::NEG_INFINITY).softmax(-1, Kind::Float).matmul(v)
}

#[test]
fn fused_causal_attention_equals_masked_softmax_attention() {
    let shape = [2, 3, 7, 8];
    let opts = (Kind::Float, Device::Cpu);
    let (q, k, v) = (Tensor::randn(shape, opts), Tensor::randn(shape, opts), Tensor::randn(shape, opts));
    let diff = (causal(&q, &k, &v) - naive_attention(&q, &k, &v)).abs().max().double_value(&[]);
    assert!(diff < 1e-5, "fused and naive attention differ by {diff}");
    // The mask matters: the first position attends to itself only.
    let first = causal(&q, &k, &v).narrow(2, 0, 1);
    let own = (first - v.narrow(2, 0, 1)).abs().max().double_value(&[]);
    assert!(own < 1e-6, "{own}");
}

#[test]
fn rope_rotates_each_pair_by_position_times_its_frequency() {
    let (t, d) = (5usize, 8usize);
    let x = Tensor::randn([1, 1, t as i64, d as i64], (Kind::Float, Device::Cpu));
    let rotated = Rope::new(t as i64, d as i64, Device::Cpu).apply(&x);
    let xv = |p: usize, i: usize| x.double_value(&[0, 0, p as i64, i as i64]);
    for p in 0..t {
        for i in 0..d / 2 {
            let angle = p as f64 * BASE.powf(-2.0 * i as f64 / d as f64);
            let (a, b) = (xv(p, i), xv(p, i + d / 2));
            let want = [a * angle.cos() - b * angle.sin(), b * angle.cos() + a * angle.sin()];
            for (j, w) in [i, i + d / 2].into_iter().zip(want) {
                let got = rotated.double_value(&[0, 0, p as i64, j as i64]);
                assert!((got - w).abs() < 1e-5, "position {p}, component {j}: {got} != {w}");
            }
        }
    }
}

/// Vocabulary of the learnable sequence.
const VOCAB: u16 = 16;

/// A prepared-token folder whose stream repeats one permutation of the
/// vocabulary: each token fixes the next one.
fn learnable_tokens(dir: &Path) {
    let cycle = [3u16, 11, 0, 7, 14, 2, 9, 5, 12, 1, 15, 6, 10, 4, 13, 8];
    assert_eq!(cycle.len(), VOCAB as usize);
    let bytes: Vec<u8> = cycle.iter().cycle().take(4096).flat_map(|id| id.to_le_bytes()).collect();
    std::fs::write(dir.join("train.ids"), bytes).unwrap();
    std::fs::write(dir.join("ids.json"), format!(r#"{{"vocab_size": {VOCAB}, "bytes": 2}}"#)).unwrap();
}

fn tiny(dir: &Path, precision: &str) -> String {
    let data = dir.display().to_string();
    format!(
        r#"{{"size": "tiny", "seq_len": 32, "batch_size": 8, "precision": "{precision}", "lr": 3e-3, "warmup": 5,
            "seed": 1, "data": {data:?}}}"#
    )
}

/// Steps of the learning test, and the loss it must get below (from
/// ln 16 = 2.77 at the start).
const STEPS: usize = 60;
const LEARNED: f64 = 0.1;

#[test]
fn the_loss_falls_below_a_tenth_within_sixty_steps_on_a_learnable_sequence() {
    let dir = tempfile::tempdir().unwrap();
    learnable_tokens(dir.path());
    let (losses, report) = train::<Gpt>(&tiny(dir.path(), "fp32"), STEPS);
    assert!((losses[0] - (VOCAB as f64).ln()).abs() < 0.3, "starts near chance: {}", losses[0]);
    let last = losses[STEPS - 1];
    assert!(last < LEARNED, "loss {last} after {STEPS} steps: {losses:?}");
    assert_eq!(report["data"], dir.path().display().to_string());
    assert_eq!(report["precision"], "float32");
}

/// bf16's losses, step by step, within this of fp32's (of losses from 2.8
/// down to about 0.04; the largest gap measured was 6e-4).
const BF16_TOLERANCE: f64 = 0.02;

#[test]
fn bf16_losses_follow_fp32_losses_within_the_tolerance() {
    let dir = tempfile::tempdir().unwrap();
    learnable_tokens(dir.path());
    let steps = 40;
    let (fp32, _) = train::<Gpt>(&tiny(dir.path(), "fp32"), steps);
    let (bf16, report) = train::<Gpt>(&tiny(dir.path(), "bf16"), steps);
    assert_eq!(report["precision"], "bfloat16");
    let worst = fp32.iter().zip(&bf16).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    assert!(worst < BF16_TOLERANCE, "bf16 strays {worst} from fp32:\nfp32 {fp32:?}\nbf16 {bf16:?}");
    assert!(bf16[steps - 1] < 0.5, "bf16 learns too: {bf16:?}");
    assert_ne!(fp32, bf16, "bf16 ran in another precision than fp32");
}

#[test]
fn fp16_with_loss_scaling_learns_the_sequence() {
    let dir = tempfile::tempdir().unwrap();
    learnable_tokens(dir.path());
    let (losses, report) = train::<Gpt>(&tiny(dir.path(), "fp16"), 40);
    assert!(losses[39] < 0.5, "{losses:?}");
    assert_eq!(report["precision"], "float16");
    assert_eq!(report["skipped_steps"], 0);
}

/// The loss and every gradient of one forward and backward pass of a
/// 3-layer model (seed 5) on fixed tokens, in `precision`, with each block
/// checkpointed or not.
fn gradients(checkpoint: bool, precision: Precision) -> (f64, Vec<(String, Tensor)>) {
    let _guard = crate::common::TORCH.lock().unwrap_or_else(|e| e.into_inner());
    tch::manual_seed(5);
    let shape = Shape { layers: 3, heads: 2, width: 32, seq_len: 16, vocab: 50, tied: true };
    let vs = tch::nn::VarStore::new(Device::Cpu);
    let model = Model::new(&vs.root(), &shape, checkpoint);
    let tokens = Tensor::randint(50, [4, 17], (Kind::Int64, Device::Cpu));
    let (input, target) = (tokens.narrow(1, 0, 16), tokens.narrow(1, 1, 16));
    let loss = precision.autocast(Device::Cpu, || model.loss(&input, &target));
    loss.backward();
    let mut grads: Vec<_> = vs.variables().into_iter().map(|(name, t)| (name, t.grad())).collect();
    grads.sort_by(|a, b| a.0.cmp(&b.0));
    (loss.double_value(&[]), grads)
}

#[test]
fn checkpointed_blocks_give_the_same_loss_and_gradients_bit_for_bit() {
    for precision in [Precision::Fp32, Precision::Bf16] {
        let (loss, plain) = gradients(false, precision);
        let (checkpointed_loss, checkpointed) = gradients(true, precision);
        assert_eq!(loss, checkpointed_loss, "{precision:?}");
        assert_eq!(plain.len(), 3 * 6 + 2, "embedding, final norm and 6 weights per block");
        for ((name, a), (_, b)) in plain.iter().zip(&checkpointed) {
            assert!(a.defined() && a.abs().sum(Kind::Float).double_value(&[]) > 0.0, "{name} has a gradient");
            assert_eq!(a, b, "{precision:?}: the gradient of {name}");
        }
    }
}

/// A tiny config training on the learnable sequence of `dir`, with
/// `accumulate` 2 and `checkpoint`.
fn checkpointed(dir: &Path, precision: &str, checkpoint: bool) -> String {
    let data = dir.display().to_string();
    format!(
        r#"{{"size": "tiny", "seq_len": 32, "batch_size": 4, "accumulate": 2, "precision": "{precision}",
            "lr": 3e-3, "warmup": 2, "seed": 3, "checkpoint": {checkpoint}, "data": {data:?}}}"#
    )
}

#[test]
fn checkpointing_trains_step_for_step_as_without_in_each_precision() {
    let dir = tempfile::tempdir().unwrap();
    learnable_tokens(dir.path());
    for precision in ["fp32", "bf16", "fp16"] {
        let (plain, report) = train::<Gpt>(&checkpointed(dir.path(), precision, false), 8);
        let (with, checkpointed_report) = train::<Gpt>(&checkpointed(dir.path(), precision, true), 8);
        assert_eq!(report["activation_checkpointing"], false);
        assert_eq!(checkpointed_report["activation_checkpointing"], true);
        assert!(plain[7] < plain[0], "{precision} learns: {plain:?}");
        assert_eq!(plain, with, "{precision}: the losses of 8 steps");
    }
}

fn number(report: &Map<String, Value>, key: &str) -> f64 {
    report[key].as_f64().unwrap_or_else(|| panic!("{key} in {report:?}"))
}

#[test]
fn flops_per_item_is_six_n_t_plus_the_attention_term() {
    let config = r#"{"size": "tiny", "seq_len": 32, "vocab": 100, "batch_size": 2, "precision": "fp32",
                     "accumulate": 2, "tied": false, "seed": 2}"#;
    let (_, report) = train::<Gpt>(config, 1);
    // tiny: 2 layers of width 64, SwiGLU hidden 192 (8/3 x 64 rounded up to 64).
    let per_layer = 4 * 64 * 64 + 3 * 64 * 192 + 2 * 64;
    let blocks = 2 * per_layer + 64;
    let n = blocks + 100 * 64; // the output projection multiplies every token
    let want = 6.0 * n as f64 * 32.0 + 12.0 * 2.0 * 64.0 * 32.0 * 32.0;
    assert_eq!(number(&report, "flops_per_item"), want);
    assert_eq!(number(&report, "params"), (blocks + 2 * 100 * 64) as f64, "untied: two embeddings");
    assert_eq!(number(&report, "tokens_per_item"), 32.0);
    assert!(report["flops_formula"].as_str().unwrap().contains("6 x N x T"));
    assert_eq!(report["data"], "synthetic");
    assert_eq!(report["accumulate"], 2);
}

#[test]
fn unknown_sizes_precisions_and_shapes_are_refused_naming_the_fix() {
    use mlb_plugin::{Config, Workload, WorkloadArgs};
    use mlb_torch::TorchPlugin;
    let create = |text: &str| {
        let args = <TorchPlugin<Gpt> as Workload>::Args::from_config(&Config::parse(text).unwrap()).unwrap();
        TorchPlugin::<Gpt>::create(args).err().map(|e| e.to_string()).unwrap_or_default()
    };
    assert!(create(r#"{"size": "7b"}"#).contains("tiny, 124m, 350m, 1.3b"));
    assert!(create(r#"{"precision": "fp8"}"#).contains("fp32, bf16, fp16"));
    assert!(create(r#"{"width": 100, "heads": 3}"#).contains("multiple of `heads`"));
}
