//! The `reso` workload (ESPCN super-resolution) as an mlb plugin: the model and its
//! training step are `mlb_torch::workloads::Reso`.

mlb_plugin::export_workload!(mlb_torch::TorchPlugin<mlb_torch::workloads::Reso>);
