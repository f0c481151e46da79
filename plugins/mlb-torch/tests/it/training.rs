//! Each workload really trains: on a fixed seed, the loss at the end of a
//! short CPU run (tiny sizes) is lower than at its start.

use crate::common::{assert_learns, colour_classes, train};
use mlb_torch::workloads::{Convnet, Dcgan, Reso, ToyLstm, ToyReg, Vae, Vit, Wlm};

#[test]
fn toy_reg_learns() {
    let (losses, report) = train::<ToyReg>(r#"{"batch_size": 64, "seed": 1}"#, 200);
    assert_learns("toy_reg", &losses, 20);
    assert_eq!(report["data"], "synthetic");
}

#[test]
fn toy_lstm_learns_in_every_dtype() {
    for dtype in ["float32", "float64", "float16"] {
        let config = format!(r#"{{"series": 8, "length": 60, "dtype": "{dtype}", "lr": 0.5, "seed": 2}}"#);
        let (losses, _) = train::<ToyLstm>(&config, 12);
        assert_learns(&format!("toy_lstm {dtype}"), &losses, 3);
    }
}

#[test]
fn vae_learns_on_synthetic_digits() {
    let (losses, report) = train::<Vae>(r#"{"batch_size": 32, "seed": 3}"#, 40);
    assert_learns("vae", &losses, 5);
    assert_eq!(report["data"], "synthetic");
    assert_eq!(report["cuda"], false);
}

#[test]
fn convnet_learns_a_fixed_batch_in_fp32_and_fp16() {
    let config = r#"{"arch": "resnet18", "batch_size": 8, "image_size": 32, "classes": 10, "seed": 4}"#;
    let (losses, report) = train::<Convnet<false>>(config, 12);
    assert_learns("convnet", &losses, 3);
    assert_eq!((&report["data"], &report["precision"]), (&"synthetic".into(), &"float32".into()));
    let (losses, report) = train::<Convnet<true>>(config, 12);
    assert_learns("convnet_fp16", &losses, 3);
    assert_eq!((&report["precision"], &report["loss_scale"]), (&"float16".into(), &128.0.into()));
}

#[test]
fn dcgan_discriminator_learns() {
    let config = r#"{"batch_size": 8, "nz": 16, "ngf": 8, "ndf": 8, "seed": 6}"#;
    let (losses, report) = train::<Dcgan>(config, 20);
    assert_learns("dcgan", &losses, 4);
    assert_eq!(report["metrics"]["loss_g"].as_array().unwrap().len(), 10);
}

#[test]
fn reso_learns() {
    let (losses, report) = train::<Reso>(r#"{"batch_size": 4, "crop_size": 32, "seed": 7}"#, 20);
    assert_learns("reso", &losses, 4);
    let psnr = report["metrics"]["psnr"].as_array().unwrap();
    assert!(psnr.iter().all(|v| v.as_f64().is_some_and(f64::is_finite)), "{psnr:?}");
}

fn tiny_wlm(vocab: u32) -> String {
    format!(
        r#"{{"batch_size": 8, "bptt": 10, "emsize": 32, "nhid": 32, "vocab": {vocab}, "corpus_tokens": 20000, "seed": 8}}"#
    )
}

#[test]
fn wlm_learns_the_generated_corpus() {
    let (losses, report) = train::<Wlm<false>>(&tiny_wlm(200), 40);
    assert_learns("wlm", &losses, 5);
    assert_eq!(report["vocab"], 200);
}

#[test]
fn wlmfp16_learns_with_master_weights() {
    let (losses, report) = train::<Wlm<true>>(&tiny_wlm(203), 40);
    assert_learns("wlmfp16", &losses, 5);
    assert_eq!(report["vocab"], 208, "the vocabulary is padded to a multiple of 8");
    assert_eq!(report["precision"], "float16");
}

/// A two-layer ViT on 32x32 images cut in 8x8 patches.
fn tiny_vit(extra: &str) -> String {
    format!(
        r#"{{"size": "tiny", "layers": 2, "heads": 4, "width": 64, "image_size": 32, "patch": 8, "classes": 3,
            "batch_size": 12, "lr": 0.002, "warmup": 5, "decay": 40, "workers": 2, "seed": 6{extra}}}"#
    )
}

#[test]
fn vit_learns_a_small_prepared_set_above_chance() {
    let root = tempfile::tempdir().unwrap();
    colour_classes(root.path(), 3, 8);
    let data = format!(r#", "data": "{}""#, root.path().display());
    let (losses, report) = train::<Vit>(&tiny_vit(&data), 40);
    assert_learns("vit", &losses, 5);
    // Chance is 1/3: the last batch of 12 is mostly right.
    let accuracy = report["last_batch_accuracy"].as_f64().unwrap();
    assert!(accuracy >= 0.75, "accuracy {accuracy}, losses {losses:?}");
    assert_eq!((&report["precision"], &report["model"]["tokens"]), (&"float32".into(), &17.into()));
    assert_eq!(report["data"], root.path().display().to_string());
}

#[test]
fn vit_trains_in_bf16_and_fp16_and_states_its_flops_and_the_cpu_peak() {
    for (precision, dtype) in [("bf16", "bfloat16"), ("fp16", "float16")] {
        let (losses, report) = train::<Vit>(&tiny_vit(&format!(r#", "precision": "{precision}""#)), 12);
        assert_learns(&format!("vit {precision}"), &losses, 3);
        assert_eq!((&report["precision"], &report["data"]), (&dtype.into(), &"synthetic".into()));
        // 6 x 12 L d^2 x T + 12 L d T^2 + patch embedding + head, less the
        // last block's query, projection and MLP (10 d^2) of the T - 1 patch
        // tokens and their attention, which the model leaves out.
        let (l, d, t) = (2.0, 64.0, 17.0);
        let standard = 6.0 * 12.0 * l * d * d * t + 12.0 * l * d * t * t + 6.0 * 192.0 * d * 16.0 + 6.0 * d * 3.0;
        let expected = standard - (6.0 * 10.0 * d * d * (t - 1.0) + 12.0 * d * (t * t - t));
        assert_eq!(report["flops_per_item"].as_f64(), Some(expected));
        assert!(report["flops_formula"].as_str().unwrap().contains("T=17"));
        assert_eq!(report["peak_source"], "probe");
        assert!(report["peak_tflops"].as_f64().is_some_and(|p| p > 0.0));
    }
}
