//! The `toy_reg` workload (polynomial regression) as an mlb plugin: the model and its
//! training step are `mlb_torch::workloads::ToyReg`.

mlb_plugin::export_workload!(mlb_torch::TorchPlugin<mlb_torch::workloads::ToyReg>);
