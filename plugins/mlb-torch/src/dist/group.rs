//! c10d's process group, through `native/process_group.cpp`: a `TCPStore`
//! rendezvous hosted by rank 0 and a Gloo group whose collectives run on
//! CPU tensors, or an NCCL one whose collectives run on the rank's GPU.

use super::backend::Backend;
use super::rendezvous::Rendezvous;
use crate::ops::taken_error;
use std::ffi::{c_char, c_int, c_void, CString};
use std::ptr::NonNull;
use std::time::Duration;
use tch::Tensor;

extern "C" {
    fn mlb_pg_new(
        host: *const c_char,
        port: u16,
        rank: c_int,
        world: c_int,
        timeout_ms: i64,
        interface: *const c_char,
        nccl_device: c_int,
        out: *mut *mut c_void,
    ) -> *mut c_char;
    fn mlb_pg_all_reduce_sum(group: *mut c_void, tensor: *mut torch_sys::C_tensor) -> *mut c_char;
    fn mlb_pg_broadcast(group: *mut c_void, tensor: *mut torch_sys::C_tensor, root: c_int) -> *mut c_char;
    fn mlb_pg_barrier(group: *mut c_void) -> *mut c_char;
    fn mlb_pg_free(group: *mut c_void);
}

/// A failure of the process group: joining it, or a collective (a peer that
/// died, a timeout), with c10d's own message.
#[derive(Debug, thiserror::Error)]
#[error(
    "rank {rank} of {world} (store {host}:{port}, timeout {timeout_s}s): {message}; a peer that stopped or \
     cannot be reached fails every rank: see the other ranks' reports"
)]
pub struct GroupError {
    /// This process's rank.
    pub rank: usize,
    /// The group's size.
    pub world: usize,
    /// Rank 0's store address.
    pub host: String,
    /// Its port.
    pub port: u16,
    /// The timeout of every operation, in seconds.
    pub timeout_s: u64,
    /// What c10d said.
    pub message: String,
}

impl GroupError {
    fn new(rendezvous: &Rendezvous, timeout: Duration, message: String) -> Self {
        GroupError {
            rank: rendezvous.rank,
            world: rendezvous.world,
            host: rendezvous.master_addr.clone(),
            port: rendezvous.master_port,
            timeout_s: timeout.as_secs(),
            message,
        }
    }
}

/// A process group this process is a rank of. Leaves it when dropped.
#[derive(Debug)]
pub struct ProcessGroup {
    handle: NonNull<c_void>,
    rendezvous: Rendezvous,
    timeout: Duration,
    backend: Backend,
}

// SAFETY: the handle is owned by this value alone; c10d's process group may
// be used from any thread, one call at a time (`&mut self` or the caller's
// ordering of collectives).
unsafe impl Send for ProcessGroup {}

impl ProcessGroup {
    /// Joins the group `rendezvous` describes over `backend`; fails (never
    /// hangs) when the store or the other ranks do not answer within
    /// `timeout`, which also bounds every collective. NCCL on a host without
    /// the backend's GPU (or in a build without NCCL) fails at once, before
    /// the rendezvous, with a message naming the fix.
    pub fn join(rendezvous: &Rendezvous, timeout: Duration, backend: Backend) -> Result<Self, GroupError> {
        let error = |message: String| GroupError::new(rendezvous, timeout, message);
        let host = CString::new(rendezvous.master_addr.as_str()).map_err(|e| error(e.to_string()))?;
        let (interface, nccl_device) = match &backend {
            Backend::Gloo { interface } => (interface.as_deref().unwrap_or_default(), -1),
            Backend::Nccl { device } => ("", c_int::try_from(*device).map_err(|e| error(e.to_string()))?),
        };
        let interface = CString::new(interface).map_err(|e| error(e.to_string()))?;
        let mut handle = std::ptr::null_mut();
        // SAFETY: the strings live across the call; the shim catches every C++
        // exception and returns NULL (having set `handle`) or its message.
        let failed = unsafe {
            taken_error(mlb_pg_new(
                host.as_ptr(),
                rendezvous.master_port,
                rendezvous.rank as c_int,
                rendezvous.world as c_int,
                timeout.as_millis().min(i64::MAX as u128) as i64,
                interface.as_ptr(),
                nccl_device,
                &mut handle,
            ))
        };
        if let Some(message) = failed {
            return Err(error(message));
        }
        let handle = NonNull::new(handle).ok_or_else(|| error("the shim returned no group".into()))?;
        Ok(ProcessGroup { handle, rendezvous: rendezvous.clone(), timeout, backend })
    }

    /// This process's place in the group.
    pub fn rendezvous(&self) -> &Rendezvous {
        &self.rendezvous
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.rendezvous.rank
    }

    /// The number of ranks.
    pub fn world(&self) -> usize {
        self.rendezvous.world
    }

    /// The backend the collectives run on.
    pub fn backend(&self) -> &Backend {
        &self.backend
    }

    /// The device the collectives take their tensors on: the CPU for Gloo,
    /// the rank's GPU for NCCL.
    pub fn device(&self) -> tch::Device {
        self.backend.device()
    }

    /// The shim's handle of the group, for the gradient hooks.
    pub(super) fn handle(&self) -> *mut c_void {
        self.handle.as_ptr()
    }

    /// `Ok`, or the group's error of `message`.
    pub(super) fn check(&self, error: *mut c_char) -> Result<(), GroupError> {
        // SAFETY: `error` was just returned by a shim function.
        match unsafe { taken_error(error) } {
            None => Ok(()),
            Some(message) => Err(GroupError::new(&self.rendezvous, self.timeout, message)),
        }
    }

    /// Sums the contiguous tensor `t` (on [`Self::device`]) over the ranks, in place.
    pub fn all_reduce_sum(&self, t: &mut Tensor) -> Result<(), GroupError> {
        // SAFETY: a live group and a live tensor handle for the call.
        self.check(unsafe { mlb_pg_all_reduce_sum(self.handle.as_ptr(), t.as_mut_ptr()) })
    }

    /// Copies rank `root`'s contiguous tensor `t` (on [`Self::device`]) into every rank's, in place.
    pub fn broadcast(&self, t: &mut Tensor, root: usize) -> Result<(), GroupError> {
        // SAFETY: a live group and a live tensor handle for the call.
        self.check(unsafe { mlb_pg_broadcast(self.handle.as_ptr(), t.as_mut_ptr(), root as c_int) })
    }

    /// Returns once every rank has called it.
    pub fn barrier(&self) -> Result<(), GroupError> {
        // SAFETY: a live group for the call.
        self.check(unsafe { mlb_pg_barrier(self.handle.as_ptr()) })
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        // SAFETY: the handle came from mlb_pg_new and is freed once.
        unsafe { mlb_pg_free(self.handle.as_ptr()) }
    }
}
