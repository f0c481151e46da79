//! The suite's libtorch workloads (see `docs/workloads.md`). Each
//! `plugins/<name>` crate exports one of them as its plugin.

pub mod convnet;
pub mod dcgan;
pub mod loader;
pub mod reso;
pub mod toy_lstm;
pub mod toy_reg;
pub mod vae;
pub mod wlm;

pub use convnet::Convnet;
pub use dcgan::Dcgan;
pub use loader::Loader;
pub use reso::Reso;
pub use toy_lstm::ToyLstm;
pub use toy_reg::ToyReg;
pub use vae::Vae;
pub use wlm::Wlm;
