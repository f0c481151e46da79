//! The `convnet_fp16` workload (ResNet image classification in half precision) as an mlb plugin: the model and its
//! training step are `mlb_torch::workloads::Convnet<true>`.

mlb_plugin::export_workload!(mlb_torch::TorchPlugin<mlb_torch::workloads::Convnet<true>>);
