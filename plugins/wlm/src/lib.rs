//! The `wlm` workload (GRU word language model) as an mlb plugin: the model and its
//! training step are `mlb_torch::workloads::Wlm<false>`.

mlb_plugin::export_workload!(mlb_torch::TorchPlugin<mlb_torch::workloads::Wlm<false>>);
