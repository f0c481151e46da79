//! Each workload really trains: on a fixed seed, the loss at the end of a
//! short CPU run (tiny sizes) is lower than at its start.

mod common;

use common::{assert_learns, train};
use mlb_torch::workloads::{Convnet, Dcgan, Reso, ToyLstm, ToyReg, Vae, Wlm};

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
