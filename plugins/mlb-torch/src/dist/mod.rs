//! Multi-process data parallelism through libtorch's c10d, which tch does
//! not bind: one process per device, each a rank of a process group that
//! averages gradients after every backward pass, as PyTorch's
//! `DistributedDataParallel` does.
//!
//! - [`rendezvous`]: the rank, the group's size and rank 0's address, from
//!   torchrun's variables (mlb's `"group": "ddp"` jobs set them) or Slurm's.
//! - [`group`]: the process group (`native/process_group.cpp`): a
//!   `TCPStore` hosted by rank 0 and Gloo's collectives; every C++ exception
//!   comes back as a [`GroupError`], and every operation is bounded by the
//!   group's timeout.
//! - [`buckets`]: gradient averaging in flattened buckets of about 25 MB and
//!   the broadcast of rank 0's initial parameters.
//! - [`settings`]: the workload arguments (`timeout`, `bucket_mb`,
//!   `interface`) and joining the group.
//!
//! Gloo's collectives work on CPU tensors: GPU gradients are copied to the
//! host for the all-reduce and back (see `docs/workloads.md`).

pub mod buckets;
pub mod group;
pub mod rendezvous;
pub mod settings;

pub use buckets::{DataParallel, BUCKET_BYTES};
pub use group::{GroupError, ProcessGroup};
pub use rendezvous::{Rendezvous, RendezvousError, Source};
pub use settings::Settings;
