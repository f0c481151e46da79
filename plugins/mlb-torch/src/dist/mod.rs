//! Multi-process data parallelism through libtorch's c10d, which tch does
//! not bind: one process per device, each a rank of a process group that
//! averages gradients after every backward pass, as PyTorch's
//! `DistributedDataParallel` does.
//!
//! - [`rendezvous`]: the rank, the group's size and rank 0's address, from
//!   torchrun's variables (mlb's `"group": "ddp"` jobs set them) or Slurm's,
//!   and whether they name a group at all ([`in_group`]).
//! - [`backend`]: Gloo or NCCL, chosen by the model's device unless the
//!   `backend` argument names one.
//! - [`group`]: the process group (`native/process_group.cpp`,
//!   `native/nccl.cpp`): a `TCPStore` hosted by rank 0 and Gloo's or NCCL's
//!   collectives; every C++ exception comes back as a [`GroupError`], and
//!   every operation is bounded by the group's timeout.
//! - [`buckets`]: gradient averaging in flattened buckets of about 25 MB and
//!   the broadcast of rank 0's initial parameters.
//! - [`hooks`]: the same averaging overlapped with the backward pass
//!   (`native/grad_hooks.cpp`).
//! - [`settings`]: the workload arguments (`timeout`, `bucket_mb`,
//!   `interface`, `backend`, `overlap`) and joining the group.
//!
//! Gloo's collectives work on CPU tensors: GPU gradients are copied to the
//! host for the all-reduce and back; NCCL's stay on the GPU (see
//! `docs/workloads.md`).

pub mod backend;
pub mod buckets;
pub mod group;
pub mod hooks;
pub mod rendezvous;
pub mod settings;

pub use backend::{Backend, Choice};
pub use buckets::{DataParallel, BUCKET_BYTES};
pub use group::{GroupError, ProcessGroup};
pub use hooks::GradHooks;
pub use rendezvous::{in_group, Rendezvous, RendezvousError, Source};
pub use settings::Settings;
