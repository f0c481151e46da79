//! The `vae` workload (variational auto-encoder on MNIST) as an mlb plugin: the model and its
//! training step are `mlb_torch::workloads::Vae`.

mlb_plugin::export_workload!(mlb_torch::TorchPlugin<mlb_torch::workloads::Vae>);
