//! The `convnet_ddp_fp16` workload (convnet_fp16 data parallel over processes, one rank per slot) as an mlb
//! plugin: the model and its training step are `mlb_torch::workloads::Convnet<true, true>`.

mlb_plugin::export_workload!(mlb_torch::TorchPlugin<mlb_torch::workloads::Convnet<true, true>>);
