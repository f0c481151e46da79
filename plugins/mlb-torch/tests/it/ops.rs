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
