//! The `loader` workload (image decode pipeline) as an mlb plugin: the model and its
//! training step are `mlb_torch::workloads::Loader`.

mlb_plugin::export_workload!(mlb_torch::TorchPlugin<mlb_torch::workloads::Loader>);
