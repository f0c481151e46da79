//! mlb-torch's integration tests, one binary (each binary links libtorch,
//! hundreds of MB): one module per area. The torch tier runs each test in
//! a process of its own (docs/testing.md).

mod arguments_doc;
mod checkpoint;
mod common;
mod data;
mod ddp;
mod determinism;
mod gpt;
mod modern;
mod ops;
mod plugins;
mod quality;
mod training;
