//! The `convnet_ddp` workload (convnet data parallel over processes, one rank per slot) as an mlb plugin: the
//! model and its training step are `mlb_torch::workloads::Convnet<false, true>`.

mlb_plugin::export_workload!(mlb_torch::TorchPlugin<mlb_torch::workloads::Convnet<false, true>>);
