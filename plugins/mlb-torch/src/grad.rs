//! Gradient utilities that stay on the device (no host synchronisation).

use std::ffi::{c_char, c_double};
use tch::{TchError, Tensor};

/// The gradients of `vars` that are defined (a variable unused by the last
/// backward pass has none).
pub fn grads(vars: &[Tensor]) -> Vec<Tensor> {
    vars.iter().map(Tensor::grad).filter(Tensor::defined).collect()
}

extern "C" {
    fn mlb_clip_grad_norm_(
        grads: *const *mut torch_sys::C_tensor,
        n: i64,
        max_norm: c_double,
        total: *mut *mut torch_sys::C_tensor,
    ) -> *mut c_char;
    fn mlb_grad_norm(
        grads: *const *mut torch_sys::C_tensor,
        n: i64,
        total: *mut *mut torch_sys::C_tensor,
    ) -> *mut c_char;
}

/// Calls `shim` (a `native/optim.cpp` function) on the handles of `grads`
/// and returns the norm it writes to its last argument.
fn norm_from(
    grads: &[Tensor],
    shim: impl FnOnce(*const *mut torch_sys::C_tensor, i64, *mut *mut torch_sys::C_tensor) -> *mut c_char,
) -> Result<Tensor, TchError> {
    let handles: Vec<*mut torch_sys::C_tensor> = grads.iter().map(|g| g.as_ptr() as *mut torch_sys::C_tensor).collect();
    let mut total: *mut torch_sys::C_tensor = std::ptr::null_mut();
    let error = shim(handles.as_ptr(), handles.len() as i64, &mut total);
    // SAFETY: the shims catch every C++ exception and return NULL or a
    // message freed by `taken_error`; on success they write a new tensor
    // handle to `total`, which `Tensor::from_ptr` then owns.
    unsafe {
        match crate::ops::taken_error(error) {
            Some(message) => Err(TchError::Torch(message)),
            None => Ok(Tensor::from_ptr(total)),
        }
    }
}

/// Scales `grads` in place so that their global L2 norm is at most
/// `max_norm`, as `torch.nn.utils.clip_grad_norm_` does (one `_foreach_norm`
/// over all of them, one `_foreach_mul_`, through `native/optim.cpp`): the
/// coefficient `min(1, max_norm / (norm + 1e-6))` is computed on the device,
/// so the host never waits. Returns the global norm before clipping.
///
/// Errors are libtorch's: gradients on different devices, for one.
pub fn f_clip_grad_norm(grads: &[Tensor], max_norm: f64) -> Result<Tensor, TchError> {
    // SAFETY: the handles are those of `grads`, alive across the call.
    norm_from(grads, |handles, n, total| unsafe { mlb_clip_grad_norm_(handles, n, max_norm, total) })
}

/// The global L2 norm of `grads` in their type, on their device (a zero
/// scalar for none): the norm [`f_clip_grad_norm`] computes, leaving the
/// gradients as they are.
pub fn f_grad_norm(grads: &[Tensor]) -> Result<Tensor, TchError> {
    // SAFETY: the handles are those of `grads`, alive across the call.
    norm_from(grads, |handles, n, total| unsafe { mlb_grad_norm(handles, n, total) })
}

/// [`f_clip_grad_norm`] that panics on error, as tch's own methods do.
pub fn clip_grad_norm(grads: &[Tensor], max_norm: f64) {
    let _ = f_clip_grad_norm(grads, max_norm).unwrap_or_else(|e| panic!("clip_grad_norm: {e}"));
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
        let total = f_clip_grad_norm(&[Tensor::from_slice(&[6.0f32]), Tensor::from_slice(&[8.0f32])], 1.0).unwrap();
        assert!((total.double_value(&[]) - 10.0).abs() < 1e-5);
        assert_eq!(f_clip_grad_norm(&[], 1.0).unwrap().double_value(&[]), 0.0);
    }

    #[test]
    fn the_norm_alone_leaves_the_gradients_as_they_are() {
        let (a, b) = (Tensor::from_slice(&[3.0f32, 0.0]), Tensor::from_slice(&[4.0f32]));
        let norm = f_grad_norm(&[a.shallow_clone(), b.shallow_clone()]).unwrap();
        assert_eq!(norm.double_value(&[]), 5.0);
        assert_eq!((a.double_value(&[0]), b.double_value(&[0])), (3.0, 4.0));
        assert_eq!(f_grad_norm(&[]).unwrap().double_value(&[]), 0.0);
    }
}
