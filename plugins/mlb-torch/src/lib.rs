//! libtorch workloads of mlb and the helpers they share. The crate's
//! `cdylib`, `libmlb_torch.so`, is the one plugin library that exports every
//! workload of [`workloads`] (the list at the end of this file).
//!
//! - [`runtime`]: threads, device and seeds of an instance; [`device`]: device
//!   requests and GPU names.
//! - [`precision`]: the `precision` argument (fp32, bf16 and fp16 autocast);
//!   [`amp`]: half precision with loss scaling and fp32 master weights;
//!   [`grad`]: gradient clipping without host syncs; [`optim`]: fused
//!   AdamW with weight-decay groups; [`checkpoint`]:
//!   activation checkpointing; [`ops`]: libtorch operations tch does not
//!   bind; [`dist`]: multi-process data parallelism (c10d's process group);
//!   [`replicas`]: data parallelism inside one process.
//! - [`data`]: loaders of the real formats (MNIST idx, image folders, word
//!   corpora) and [`synth`]: synthetic data of the same shapes.
//! - [`flops`]: training FLOPs per item by formula; [`probe`]: a CPU's
//!   measured peak.
//! - [`fingerprint`]: what a deterministic run proves it computed;
//!   [`resume`]: a checkpoint's folder, written and read back in place.
//! - [`plugin`]: [`TorchWorkload`], the adaptor to the plugin SDK.
//! - [`workloads`]: the suite's models, one module each.

pub mod amp;
pub mod checkpoint;
pub mod data;
pub mod device;
pub mod dist;
pub mod fingerprint;
pub mod flops;
pub mod grad;
pub mod metrics;
pub mod ops;
pub mod optim;
pub mod plugin;
pub mod precision;
pub mod probe;
pub mod replicas;
pub mod resume;
pub mod runtime;
pub mod synth;
pub mod weights;
pub mod workloads;

pub use plugin::{TorchPlugin, TorchWorkload};
pub use runtime::Runtime;

use workloads::*;

mlb_plugin::export_workloads!(
    TorchPlugin<ToyReg>,
    TorchPlugin<ToyLstm>,
    TorchPlugin<Vae>,
    TorchPlugin<Convnet<false>>,
    TorchPlugin<Convnet<true>>,
    TorchPlugin<Convnet<false, true>>,
    TorchPlugin<Convnet<true, true>>,
    TorchPlugin<Dcgan>,
    TorchPlugin<Reso>,
    TorchPlugin<Wlm<false>>,
    TorchPlugin<Wlm<true>>,
    TorchPlugin<Loader>,
    TorchPlugin<Recom>,
    TorchPlugin<Cart>,
    TorchPlugin<Atari>,
    TorchPlugin<Ssd>,
    TorchPlugin<FastStyle>,
    TorchPlugin<Translator>,
    TorchPlugin<Scaling>,
    TorchPlugin<DistributedConvnet<false>>,
    TorchPlugin<DistributedConvnet<true>>,
    TorchPlugin<DcganAll>,
    TorchPlugin<Gpt>,
    TorchPlugin<Vit>,
    TorchPlugin<Gemm>,
    TorchPlugin<Membw>,
    TorchPlugin<Allreduce>,
);
