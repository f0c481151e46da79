//! The suite's libtorch workloads (see `docs/workloads.md`), one module each;
//! the crate's library exports all of them (`export_workloads!` in the crate
//! root).

pub mod atari;
pub mod cart;
pub mod convnet;
pub mod convnet_distributed;
pub mod dcgan;
pub mod dcgan_all;
pub mod fast_style;
pub mod gpt;
pub mod loader;
pub mod recom;
pub mod reso;
pub mod scaling;
pub mod ssd;
pub mod stress;
pub mod toy_lstm;
pub mod toy_reg;
pub mod translator;
pub mod vae;
pub mod vit;
pub mod wlm;

pub use atari::Atari;
pub use cart::Cart;
pub use convnet::Convnet;
pub use convnet_distributed::DistributedConvnet;
pub use dcgan::Dcgan;
pub use dcgan_all::DcganAll;
pub use fast_style::FastStyle;
pub use gpt::Gpt;
pub use loader::Loader;
pub use recom::Recom;
pub use reso::Reso;
pub use scaling::Scaling;
pub use ssd::Ssd;
pub use stress::{Allreduce, Gemm, Membw};
pub use toy_lstm::ToyLstm;
pub use toy_reg::ToyReg;
pub use translator::Translator;
pub use vae::Vae;
pub use vit::Vit;
pub use wlm::Wlm;
