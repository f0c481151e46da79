//! Gradient utilities that stay on the device (no host synchronisation).

use tch::Tensor;

/// The gradients of `vars` that are defined (a variable unused by the last
/// backward pass has none).
pub fn grads(vars: &[Tensor]) -> Vec<Tensor> {
    vars.iter().map(Tensor::grad).filter(Tensor::defined).collect()
}

/// Scales `grads` in place so that their global L2 norm is at most
/// `max_norm`, as `torch.nn.utils.clip_grad_norm_` does: the coefficient
/// `min(1, max_norm / (norm + 1e-6))` is computed on the device, so the host
/// never waits.
pub fn clip_grad_norm(grads: &[Tensor], max_norm: f64) {
    tch::no_grad(|| {
        let norms: Vec<Tensor> = grads.iter().map(|g| g.norm()).collect();
        let total = Tensor::stack(&norms, 0).norm();
        let coef = (max_norm / (&total + 1e-6)).clamp_max(1.0);
        for g in grads {
            let _ = g.shallow_clone().g_mul_(&coef);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_gradients_are_scaled_to_the_limit_and_small_ones_kept() {
        let a = Tensor::from_slice(&[3.0f32, 0.0]);
        let b = Tensor::from_slice(&[4.0f32]);
        clip_grad_norm(&[a.shallow_clone(), b.shallow_clone()], 1.0);
        assert!((a.double_value(&[0]) - 0.6).abs() < 1e-5);
        assert!((b.double_value(&[0]) - 0.8).abs() < 1e-5);
        let small = Tensor::from_slice(&[0.1f32]);
        clip_grad_norm(&[small.shallow_clone()], 1.0);
        assert!((small.double_value(&[0]) - 0.1).abs() < 1e-6);
    }
}
