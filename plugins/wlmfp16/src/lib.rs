//! The `wlmfp16` workload (GRU word language model in half precision) as an mlb plugin: the model and its
//! training step are `mlb_torch::workloads::Wlm<true>`.

mlb_plugin::export_workload!(mlb_torch::TorchPlugin<mlb_torch::workloads::Wlm<true>>);
