//! libtorch operations tch does not bind, called through `native/*.cpp`.

use std::ffi::{c_char, c_double, CStr};
use tch::{TchError, Tensor};

extern "C" {
    fn mlb_leaky_relu_(tensor: *mut torch_sys::C_tensor, negative_slope: c_double) -> *mut c_char;
    fn mlb_free_error(message: *mut c_char);
    fn mlb_set_allow_tf32(allow: bool);
    fn mlb_set_deterministic() -> *mut c_char;
    fn mlb_cross_entropy(
        logits: *const torch_sys::C_tensor,
        targets: *const torch_sys::C_tensor,
        loss: *mut *mut torch_sys::C_tensor,
    ) -> *mut c_char;
}

/// Lets cuBLAS compute float32 matrix products in TF32 (PyTorch's
/// `torch.backends.cuda.matmul.allow_tf32`), for the whole process. No effect
/// on the CPU.
pub fn set_allow_tf32(allow: bool) {
    // SAFETY: sets one flag of libtorch's global context; no pointers.
    unsafe { mlb_set_allow_tf32(allow) }
}

/// Makes libtorch compute deterministically, for the whole process:
/// deterministic algorithms only (PyTorch's
/// `torch.use_deterministic_algorithms(True)`: an operation that has none
/// fails), cuDNN's (and MIOpen's) deterministic algorithms and no
/// benchmarking of candidates (`torch.backends.cudnn.deterministic = True`,
/// `benchmark = False`).
///
/// Errors are libtorch's.
pub fn set_deterministic() -> Result<(), TchError> {
    // SAFETY: sets flags of libtorch's global context; the shim catches every
    // C++ exception and returns NULL or a string it allocated, freed here.
    unsafe { taken_error(mlb_set_deterministic()).map_or(Ok(()), |m| Err(TchError::Torch(m))) }
}

/// LeakyReLU of slope `negative_slope` applied to `x` in place (PyTorch's
/// `F.leaky_relu(x, negative_slope, inplace=True)`), recorded by autograd.
///
/// Errors are libtorch's: an in-place operation on a leaf that requires
/// grad, for one.
pub fn f_leaky_relu_(x: &mut Tensor, negative_slope: f64) -> Result<(), TchError> {
    // SAFETY: `x` is a live tch tensor, so its handle is a valid torch::Tensor*
    // for the call; the shim catches every C++ exception and returns either
    // NULL or a string it allocated, which is freed here once copied.
    unsafe { taken_error(mlb_leaky_relu_(x.as_mut_ptr(), negative_slope)).map_or(Ok(()), |m| Err(TchError::Torch(m))) }
}

/// The mean cross entropy of `logits` (`[rows, classes]`, any floating
/// type) against the class indices `targets` (`[rows]`), in float32: the
/// value of tch's `logits.to_kind(Float).cross_entropy_for_logits(targets)`,
/// with its gradient computed in the forward pass, in place of the
/// log-softmax it takes (`native/cross_entropy.cpp`: half the time at a
/// language model's vocabulary). Its graph runs backward once.
///
/// Panics, as tch's operations do, on logits not of two dimensions or
/// targets not one a row.
pub fn cross_entropy(logits: &Tensor, targets: &Tensor) -> Tensor {
    let mut loss: *mut torch_sys::C_tensor = std::ptr::null_mut();
    // SAFETY: `logits` and `targets` are live tensors whose handles are
    // torch::Tensor*, read during the call; the shim catches every C++
    // exception and returns NULL or a string it allocated, freed here; on
    // success `loss` is a new torch::Tensor* whose ownership passes to the
    // returned Tensor.
    if let Some(message) = unsafe { taken_error(mlb_cross_entropy(logits.as_ptr(), targets.as_ptr(), &mut loss)) } {
        panic!("cross_entropy: {message}");
    }
    // SAFETY: see above; non-null on success.
    unsafe { Tensor::from_ptr(loss) }
}

/// The message of a shim's `error` (NULL: none), copied and freed.
///
/// # Safety
/// `error` is NULL or a string returned by a `native/*.cpp` function, not
/// freed yet; it is freed here.
pub(crate) unsafe fn taken_error(error: *mut c_char) -> Option<String> {
    if error.is_null() {
        return None;
    }
    // SAFETY: per the contract above, a live NUL-terminated string the shim allocated.
    let message = unsafe { CStr::from_ptr(error) }.to_string_lossy().into_owned();
    // SAFETY: freed once, by the shim's own allocator.
    unsafe { mlb_free_error(error) };
    Some(message)
}

/// [`f_leaky_relu_`] that panics on error, as tch's own methods do; returns
/// a handle to `x`.
pub fn leaky_relu_(x: &Tensor, negative_slope: f64) -> Tensor {
    let mut y = x.shallow_clone();
    f_leaky_relu_(&mut y, negative_slope).unwrap_or_else(|e| panic!("leaky_relu_: {e}"));
    y
}
