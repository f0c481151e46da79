//! Deterministic runs on the CPU: instances of convnet, gpt and vit set up
//! alike (same seed, threads, deterministic setup) compute the same bits, so
//! that their fingerprints after the same step agree (vit's with its images
//! decoded by two data workers); one whose parameter had a bit flipped
//! leaves them; a workload that does not declare itself deterministic
//! refuses a fingerprint, by name.

use crate::common::{colour_classes, Run, TORCH};
use mlb_plugin::{Fault, Fingerprint, Setup, Workload};
use mlb_torch::workloads::{Convnet, Gpt, ToyReg, Vit};
use mlb_torch::TorchWorkload;

/// Steps each instance runs.
const STEPS: usize = 12;
/// The step after which the fingerprint is compared.
const AT: usize = 10;
/// The step after which the faulty instance has a bit flipped.
const FLIP_AFTER: usize = 5;

/// A deterministic setup on the CPU with two threads.
fn deterministic() -> Setup {
    Setup { deterministic: true, ..Setup::new("cpu", 2) }
}

/// Runs `STEPS` steps of `W` with `config`, flipping a bit after step
/// `FLIP_AFTER` when `flip`; returns the fingerprint and the loss's bits
/// after step `AT`. The report says `deterministic: true`.
fn fingerprint_at<W: TorchWorkload>(config: &str, flip: bool) -> (Fingerprint, u64) {
    let mut run = Run::<W>::with_setup(config, &deterministic());
    let mut at = None;
    for step in 1..=STEPS {
        let loss = run.step().loss.expect("the step has a loss");
        if flip && step == FLIP_AFTER {
            run.plugin().inject(Fault::FlipBit).unwrap_or_else(|e| panic!("{}: inject: {e}", W::NAME));
        }
        if step == AT {
            let print = run.plugin().fingerprint().unwrap_or_else(|e| panic!("{}: fingerprint: {e}", W::NAME));
            at = Some((print, loss.to_bits()));
        }
    }
    assert_eq!(run.report()["deterministic"], true, "{}: the report says so", W::NAME);
    at.expect("step AT ran")
}

/// Two instances alike agree bit for bit at step `AT`; a third with a
/// flipped bit differs in its parameters, gradient norm and loss.
fn agree_and_catch_a_flip<W: TorchWorkload>(config: &str) {
    let _guard = TORCH.lock().unwrap_or_else(|e| e.into_inner());
    assert!(<mlb_torch::TorchPlugin<W> as Workload>::DETERMINISTIC, "{} declares itself deterministic", W::NAME);
    let (first, second) = (fingerprint_at::<W>(config, false), fingerprint_at::<W>(config, false));
    assert!(first.0.grad_norm.is_some_and(f64::is_finite), "{}: {first:?}", W::NAME);
    assert_eq!(first, second, "{}: two instances alike", W::NAME);
    let flipped = fingerprint_at::<W>(config, true);
    assert_ne!(flipped.0.params, first.0.params, "{}: the flipped instance's parameters", W::NAME);
    assert_ne!(flipped.0.grad_norm, first.0.grad_norm, "{}: the flipped instance's gradient norm", W::NAME);
    assert_ne!(flipped.1, first.1, "{}: the flipped instance's loss", W::NAME);
}

#[test]
fn convnet_instances_agree_and_a_flipped_bit_is_caught() {
    agree_and_catch_a_flip::<Convnet<false>>(
        r#"{"arch": "resnet18", "batch_size": 4, "image_size": 32, "classes": 10, "lr": 0.01, "seed": 3}"#,
    );
}

#[test]
fn gpt_instances_agree_and_a_flipped_bit_is_caught() {
    agree_and_catch_a_flip::<Gpt>(
        r#"{"size": "tiny", "seq_len": 32, "batch_size": 4, "vocab": 256, "precision": "fp32", "warmup": 2, "seed": 3}"#,
    );
}

#[test]
fn vit_instances_reading_an_image_folder_agree_and_a_flipped_bit_is_caught() {
    let root = tempfile::tempdir().unwrap();
    colour_classes(root.path(), 3, 8);
    agree_and_catch_a_flip::<Vit>(&format!(
        r#"{{"size": "tiny", "layers": 2, "heads": 4, "width": 64, "image_size": 32, "patch": 8, "classes": 3,
            "batch_size": 6, "warmup": 2, "workers": 2, "seed": 3, "data": {:?}}}"#,
        root.path().display().to_string()
    ));
}

#[test]
fn a_workload_that_is_not_deterministic_refuses_a_fingerprint_by_name() {
    let _guard = TORCH.lock().unwrap_or_else(|e| e.into_inner());
    let mut run = Run::<ToyReg>::new("{}");
    run.step();
    let refused = run.plugin().fingerprint().unwrap_err().to_string();
    assert_eq!(refused, "workload `toy_reg` cannot run deterministically");
    assert_eq!(run.report().get("deterministic"), None);
}
