//! The libtorch operations mlb binds itself (`native/*.cpp`): values,
//! in-place update, gradients through autograd, and libtorch's errors.

use mlb_torch::ops;
use tch::{Kind, Tensor};

fn values(t: &Tensor) -> Vec<f32> {
    Vec::<f32>::try_from(t.flatten(0, -1)).unwrap()
}

#[test]
fn leaky_relu_scales_negatives_in_place() {
    let mut x = Tensor::from_slice(&[-1.0f32, 2.0, -3.0, 0.5]);
    let before = x.data_ptr();
    ops::f_leaky_relu_(&mut x, 0.2).unwrap();
    assert_eq!(x.data_ptr(), before, "not in place");
    let got = values(&x);
    for (g, want) in got.iter().zip([-0.2f32, 2.0, -0.6, 0.5]) {
        assert!((g - want).abs() < 1e-6, "{got:?}");
    }
}

#[test]
fn leaky_relu_gradient_is_one_or_the_slope() {
    let a = Tensor::from_slice(&[-1.0f32, 2.0, -3.0, 0.5]).set_requires_grad(true);
    let y = ops::leaky_relu_(&(&a * 3.0), 0.25);
    (y * Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0])).sum(Kind::Float).backward();
    // d/da of w * lrelu(3a): 3 w where a > 0, 3 w * 0.25 elsewhere.
    let got = values(&a.grad());
    for (g, want) in got.iter().zip([0.75f32, 6.0, 2.25, 12.0]) {
        assert!((g - want).abs() < 1e-5, "{got:?}");
    }
}

#[test]
fn leaky_relu_reports_libtorch_errors() {
    let mut leaf = Tensor::from_slice(&[-1.0f32, 1.0]).set_requires_grad(true);
    let err = ops::f_leaky_relu_(&mut leaf, 0.2).unwrap_err().to_string();
    assert!(err.contains("in-place"), "{err}");
    assert_eq!(values(&leaf), [-1.0, 1.0], "a failed call changed its input");
}

/// Logits of `rows` x `classes` (of `kind`) and targets.
fn logits_and_targets(rows: i64, classes: i64, kind: Kind) -> (Tensor, Tensor) {
    let logits = (Tensor::randn([rows, classes], (Kind::Float, tch::Device::Cpu)) * 3.0).to_kind(kind);
    (logits, Tensor::randint(classes, [rows], (Kind::Int64, tch::Device::Cpu)))
}

/// The loss of `loss_of` on a leaf copy of `logits` and that leaf's
/// gradient, after the loss times `scale` ran backward.
fn loss_and_grad(
    logits: &Tensor,
    targets: &Tensor,
    scale: f64,
    loss_of: fn(&Tensor, &Tensor) -> Tensor,
) -> (f64, Tensor) {
    let leaf = logits.copy().set_requires_grad(true);
    let loss = loss_of(&leaf, targets);
    assert_eq!(loss.kind(), Kind::Float);
    (loss.shallow_clone() * scale).backward();
    (loss.double_value(&[]), leaf.grad().to_kind(Kind::Float))
}

fn libtorchs(logits: &Tensor, targets: &Tensor) -> Tensor {
    logits.to_kind(Kind::Float).cross_entropy_for_logits(targets)
}

#[test]
fn cross_entropy_and_its_gradient_are_libtorchs() {
    for (kind, rows, classes, scale, tolerance) in [
        (Kind::Float, 64, 1000, 1.0, 1e-6),
        (Kind::Float, 48, 333, 3.5, 1e-6),
        (Kind::BFloat16, 64, 4096, 1.0, 1e-2),
        // float16 under a loss scale: its smallest gradients kept, as libtorch keeps them.
        (Kind::Half, 64, 32768, 65536.0, 1e-3),
    ] {
        let (logits, targets) = logits_and_targets(rows, classes, kind);
        let (loss, grad) = loss_and_grad(&logits, &targets, scale, ops::cross_entropy);
        let (want, want_grad) = loss_and_grad(&logits, &targets, scale, libtorchs);
        assert!((loss - want).abs() <= 1e-5 * want.abs(), "{kind:?}: {loss} against {want}");
        let off = (&grad - &want_grad).abs().max().double_value(&[]);
        let largest = want_grad.abs().max().double_value(&[]);
        assert!(off <= tolerance * largest, "{kind:?} x{scale}: gradient off by {off} (largest {largest})");
        if kind == Kind::Half {
            // Entry by entry, the small ones too: scaled before float16 rounds them.
            let relative = ((&grad - &want_grad).abs() / (want_grad.abs() + 1e-4)).max().double_value(&[]);
            assert!(relative < 1e-2, "float16: an entry off by {relative} of itself");
        }
    }
}

#[test]
fn cross_entropy_refuses_a_second_backward_and_bad_shapes() {
    let (logits, targets) = logits_and_targets(8, 10, Kind::Float);
    let leaf = logits.set_requires_grad(true);
    let loss = ops::cross_entropy(&leaf, &targets);
    loss.backward();
    let again = std::panic::catch_unwind(|| loss.backward());
    assert!(again.is_err(), "a second backward pass ran");
    let bad = std::panic::catch_unwind(|| ops::cross_entropy(&leaf, &targets.narrow(0, 0, 4)));
    let message = *bad.unwrap_err().downcast::<String>().unwrap();
    assert!(message.contains("one target a row"), "{message}");
}
