//! Activation checkpointing (PyTorch's `torch.utils.checkpoint`, reentrant
//! variant), which neither libtorch's C++ API nor tch offers: a segment of
//! the model runs in the forward pass without recording a graph, so that its
//! activations are freed at once, and runs again in the backward pass, with
//! the graph recorded, to back-propagate through it
//! (`native/checkpoint.cpp`, a custom autograd function calling back into
//! Rust).
//!
//! The recomputation runs under the autocast state of the forward pass, and
//! the parameters' gradients reach the engine as without checkpointing: they
//! are accumulated into `.grad` (fp16's scaled gradients included) and data
//! parallelism's gradient hooks fire. The segment must compute the same
//! thing twice: no random state (dropout) is replayed.

use crate::ops::taken_error;
use std::any::Any;
use std::ffi::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use tch::Tensor;
use torch_sys::C_tensor;

/// The segment as the C++ side holds it.
type Segment = Box<dyn Fn(&Tensor) -> Tensor + Send>;

type RunFn = unsafe extern "C" fn(*mut c_void, *mut C_tensor, *mut *mut C_tensor, *mut c_char, usize) -> bool;
type DropFn = unsafe extern "C" fn(*mut c_void);

extern "C" {
    fn mlb_checkpoint(
        input: *const C_tensor,
        params: *const *const C_tensor,
        param_count: usize,
        run: RunFn,
        drop: DropFn,
        env: *mut c_void,
        output: *mut *mut C_tensor,
    ) -> *mut c_char;
}

/// `segment(input)` with its activations recomputed in the backward pass
/// instead of kept. `params` are the tensors requiring gradients that the
/// segment reads besides `input` (its weights): their gradients are
/// computed in the backward pass, a parameter left out gets none. The
/// segment is kept, with the graph, until the backward pass has run or the
/// output is dropped; it may run on the autograd engine's thread (CUDA).
///
/// Panics, as tch's operations do, when the segment panics or libtorch
/// fails; a panic in the backward pass comes out of `backward` as
/// libtorch's error.
pub fn checkpoint(input: &Tensor, params: &[Tensor], segment: impl Fn(&Tensor) -> Tensor + Send + 'static) -> Tensor {
    let env = Box::into_raw(Box::new(Box::new(segment) as Segment)).cast::<c_void>();
    let handles: Vec<*const C_tensor> = params.iter().map(Tensor::as_ptr).collect();
    let mut output: *mut C_tensor = std::ptr::null_mut();
    // SAFETY: `input` and `params` are live tensors whose handles are
    // torch::Tensor*, read during the call; `env` is a leaked `Segment` whose
    // ownership passes to the C++ side, which frees it with `drop_segment`
    // exactly once (at once on failure). On success `output` is a new
    // torch::Tensor* whose ownership passes to the returned Tensor.
    let error = unsafe {
        taken_error(mlb_checkpoint(
            input.as_ptr(),
            handles.as_ptr(),
            handles.len(),
            run_segment,
            drop_segment,
            env,
            &mut output,
        ))
    };
    if let Some(message) = error {
        panic!("checkpoint: {message}");
    }
    // SAFETY: see above; non-null on success.
    unsafe { Tensor::from_ptr(output) }
}

/// Runs the segment `env` on `input` (taken), writing a new tensor to
/// `output`; on a panic writes its message into `error` (NUL-terminated,
/// cut to `error_len` bytes) and returns false.
unsafe extern "C" fn run_segment(
    env: *mut c_void,
    input: *mut C_tensor,
    output: *mut *mut C_tensor,
    error: *mut c_char,
    error_len: usize,
) -> bool {
    // SAFETY: `env` is the `Segment` `checkpoint` leaked, alive until
    // `drop_segment`; `input` is a torch::Tensor* the C++ side allocated for
    // this call and hands over.
    let (segment, input) = unsafe { (&*env.cast::<Segment>(), Tensor::from_ptr(input)) };
    match catch_unwind(AssertUnwindSafe(|| segment(&input))) {
        Ok(mut result) => {
            // SAFETY: `output` points at the caller's slot; the handle's
            // ownership passes to the C++ side, which deletes it.
            unsafe { *output = result.as_mut_ptr() };
            std::mem::forget(result);
            true
        }
        Err(panic) => {
            let message = panic_message(panic.as_ref());
            let len = message.len().min(error_len.saturating_sub(1));
            // SAFETY: `error` is the caller's buffer of `error_len` bytes;
            // `len + 1 <= error_len` bytes are written.
            unsafe {
                std::ptr::copy_nonoverlapping(message.as_ptr().cast::<c_char>(), error, len);
                *error.add(len) = 0;
            }
            false
        }
    }
}

/// Frees the segment `env`.
unsafe extern "C" fn drop_segment(env: *mut c_void) {
    // SAFETY: `env` is the `Segment` `checkpoint` leaked; the C++ side calls
    // this once, after its last run.
    drop(unsafe { Box::from_raw(env.cast::<Segment>()) });
}

/// A panic's message, when it is a string.
fn panic_message(panic: &(dyn Any + Send)) -> String {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(text), _) => (*text).to_string(),
        (_, Some(text)) => text.clone(),
        _ => "the segment panicked".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::precision::{Precision, TorchPrecision};
    use tch::{Device, Kind};

    /// `tanh(x w) w'`: a segment whose activations the backward pass needs.
    fn segment(w: &Tensor) -> impl Fn(&Tensor) -> Tensor + Send + 'static {
        let w = w.shallow_clone();
        move |x: &Tensor| x.matmul(&w).tanh().matmul(&w.transpose(0, 1))
    }

    #[test]
    fn gradients_through_a_checkpointed_segment_equal_the_recorded_ones() {
        tch::manual_seed(3);
        let opts = (Kind::Float, Device::Cpu);
        let w = Tensor::randn([4, 6], opts).set_requires_grad(true);
        let x0 = Tensor::randn([3, 4], opts).set_requires_grad(true);
        let run = |checkpointed: bool| {
            let x = &x0 * 2.0;
            let y = if checkpointed { checkpoint(&x, &[w.shallow_clone()], segment(&w)) } else { segment(&w)(&x) };
            y.square().sum(Kind::Float).backward();
            let grads = (w.grad().copy(), x0.grad().copy(), y.detach());
            let _ = w.grad().zero_();
            let _ = x0.grad().zero_();
            grads
        };
        let (plain, checkpointed) = (run(false), run(true));
        assert!(plain.0.abs().sum(Kind::Float).double_value(&[]) > 0.0);
        assert_eq!(plain.0, checkpointed.0, "the weight's gradient");
        assert_eq!(plain.1, checkpointed.1, "the input's gradient");
        assert_eq!(plain.2, checkpointed.2, "the output");
    }

    #[test]
    fn the_segment_lives_as_long_as_the_graph_and_no_longer() {
        let w = Tensor::ones([2, 2], (Kind::Float, Device::Cpu)).set_requires_grad(true);
        let x = Tensor::ones([1, 2], (Kind::Float, Device::Cpu));
        let token = std::sync::Arc::new(());
        let held = |token: &std::sync::Arc<()>| {
            let (token, f) = (token.clone(), segment(&w));
            move |x: &Tensor| {
                let _ = &token;
                f(x)
            }
        };
        let y = checkpoint(&x, &[w.shallow_clone()], held(&token));
        assert!(y.requires_grad());
        assert_eq!(std::sync::Arc::strong_count(&token), 2, "kept for the backward pass");
        drop(y);
        assert_eq!(std::sync::Arc::strong_count(&token), 1, "freed with the graph");
        let y = tch::no_grad(|| checkpoint(&x, &[w.shallow_clone()], held(&token)));
        assert!(!y.requires_grad());
        assert_eq!(std::sync::Arc::strong_count(&token), 1, "no graph: freed at once");
    }

    #[test]
    fn a_panic_in_the_segment_comes_back_as_a_panic_with_its_message() {
        let x = Tensor::ones([2], (Kind::Float, Device::Cpu)).set_requires_grad(true);
        let failed = catch_unwind(|| checkpoint(&x, &[], |_| panic!("no such layer")));
        let message = panic_message(failed.unwrap_err().as_ref());
        assert!(message.contains("no such layer"), "{message}");
    }

    #[test]
    fn the_recomputation_runs_under_the_autocast_of_the_forward_pass() {
        let opts = (Kind::Float, Device::Cpu);
        let w = Tensor::randn([4, 4], opts).set_requires_grad(true);
        let x = Tensor::randn([2, 4], opts).set_requires_grad(true);
        let kinds = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = kinds.clone();
        let weight = w.shallow_clone();
        let y = Precision::Bf16.autocast(Device::Cpu, || {
            checkpoint(&x, &[w.shallow_clone()], move |x| {
                let y = x.matmul(&weight);
                seen.lock().unwrap().push(y.kind());
                y
            })
        });
        y.to_kind(Kind::Float).sum(Kind::Float).backward();
        assert_eq!(*kinds.lock().unwrap(), [Kind::BFloat16, Kind::BFloat16], "forward, then recomputation");
        assert_eq!(w.grad().kind(), Kind::Float);
        assert!(w.grad().abs().sum(Kind::Float).double_value(&[]) > 0.0);
    }
}
