//! The `toy_lstm` workload (sine-wave prediction with stacked LSTM cells) as an mlb plugin: the model and its
//! training step are `mlb_torch::workloads::ToyLstm`.

mlb_plugin::export_workload!(mlb_torch::TorchPlugin<mlb_torch::workloads::ToyLstm>);
