//! libtorch operations tch does not bind, called through `native/*.cpp`.

use std::ffi::{c_char, c_double, CStr};
use tch::{TchError, Tensor};

extern "C" {
    fn mlb_leaky_relu_(tensor: *mut torch_sys::C_tensor, negative_slope: c_double) -> *mut c_char;
    fn mlb_free_error(message: *mut c_char);
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
    unsafe {
        let error = mlb_leaky_relu_(x.as_mut_ptr(), negative_slope);
        if error.is_null() {
            return Ok(());
        }
        let message = CStr::from_ptr(error).to_string_lossy().into_owned();
        mlb_free_error(error);
        Err(TchError::Torch(message))
    }
}

/// [`f_leaky_relu_`] that panics on error, as tch's own methods do; returns
/// a handle to `x`.
pub fn leaky_relu_(x: &Tensor, negative_slope: f64) -> Tensor {
    let mut y = x.shallow_clone();
    f_leaky_relu_(&mut y, negative_slope).unwrap_or_else(|e| panic!("leaky_relu_: {e}"));
    y
}
