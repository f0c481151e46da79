//! The all-reduce overlapped with the backward pass (`native/grad_hooks.cpp`),
//! as `DistributedDataParallel` does it: the parameters are bucketed in the
//! reverse order of their creation (about the order the backward pass
//! reaches them), a hook after each parameter's gradient accumulation marks
//! it ready, and each bucket's all-reduce starts as soon as its gradients
//! (and every bucket before it) are ready. [`GradHooks::finish`], before the
//! optimizer step, waits for them and writes the means into the gradients.

use super::buckets::plan;
use super::group::{GroupError, ProcessGroup};
use std::ffi::{c_char, c_void};
use std::ptr::NonNull;
use tch::Tensor;

extern "C" {
    fn mlb_hooks_new(
        group: *mut c_void,
        params: *const *const torch_sys::C_tensor,
        count: usize,
        sizes: *const usize,
        buckets: usize,
        out: *mut *mut c_void,
    ) -> *mut c_char;
    fn mlb_hooks_finish(hooks: *mut c_void) -> *mut c_char;
    fn mlb_hooks_started(hooks: *mut c_void) -> usize;
    fn mlb_hooks_free(hooks: *mut c_void);
}

/// Hooks on the gradient accumulation of a model's parameters; removed
/// when dropped.
#[derive(Debug)]
pub struct GradHooks {
    handle: NonNull<c_void>,
    buckets: usize,
}

// SAFETY: the handle is owned by this value alone; the shim guards its
// state with a mutex shared with the hooks.
unsafe impl Send for GradHooks {}

impl GradHooks {
    /// Hooks `params` (leaves that take a gradient) of `group`'s rank, in
    /// buckets of at most `bucket_bytes` taken from the last parameter
    /// backwards.
    pub fn new(group: &ProcessGroup, params: &[Tensor], bucket_bytes: usize) -> Result<Self, GroupError> {
        let order: Vec<&Tensor> = params.iter().rev().collect();
        let shape: Vec<_> =
            order.iter().map(|t| (t.numel() * t.kind().elt_size_in_bytes(), t.kind(), t.device())).collect();
        let sizes: Vec<usize> = plan(&shape, bucket_bytes).into_iter().map(|r| r.len()).collect();
        let pointers: Vec<*const torch_sys::C_tensor> = order.iter().map(|t| t.as_ptr()).collect();
        let mut handle = std::ptr::null_mut();
        // SAFETY: a live group, tensors and arrays for the call; the shim
        // keeps its own references to the tensors and catches every C++
        // exception.
        group.check(unsafe {
            mlb_hooks_new(group.handle(), pointers.as_ptr(), pointers.len(), sizes.as_ptr(), sizes.len(), &mut handle)
        })?;
        let handle = NonNull::new(handle).expect("the shim sets the hooks when it returns no error");
        Ok(GradHooks { handle, buckets: sizes.len() })
    }

    /// The number of buckets.
    pub fn buckets(&self) -> usize {
        self.buckets
    }

    /// How many buckets have started their all-reduce since the last
    /// [`Self::finish`]: after a backward pass that reached every
    /// parameter, all of them.
    pub fn started(&self) -> usize {
        // SAFETY: a live handle for the call.
        unsafe { mlb_hooks_started(self.handle.as_ptr()) }
    }

    /// Waits for this step's all-reduces (starting the buckets whose
    /// gradients the backward pass did not reach: those take part as zeros
    /// and keep no gradient) and replaces each gradient by its mean over
    /// the ranks. `group` is the group the hooks were made for (its error
    /// names the rank).
    pub fn finish(&self, group: &ProcessGroup) -> Result<(), GroupError> {
        // SAFETY: a live handle for the call.
        group.check(unsafe { mlb_hooks_finish(self.handle.as_ptr()) })
    }
}

impl Drop for GradHooks {
    fn drop(&mut self) {
        // SAFETY: the handle came from mlb_hooks_new and is freed once.
        unsafe { mlb_hooks_free(self.handle.as_ptr()) }
    }
}
