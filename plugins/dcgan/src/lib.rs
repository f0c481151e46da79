//! The `dcgan` workload (DCGAN on 64x64 images) as an mlb plugin: the model and its
//! training step are `mlb_torch::workloads::Dcgan`.

mlb_plugin::export_workload!(mlb_torch::TorchPlugin<mlb_torch::workloads::Dcgan>);
