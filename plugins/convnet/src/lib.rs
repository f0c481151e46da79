//! The `convnet` workload (ResNet image classification) as an mlb plugin: the model and its
//! training step are `mlb_torch::workloads::Convnet<false>`.

mlb_plugin::export_workload!(mlb_torch::TorchPlugin<mlb_torch::workloads::Convnet<false>>);
